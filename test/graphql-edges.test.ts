// GraphQL edge cases a probe found: a root connection asked only for `__typename` (plugin-prisma then
// runs neither its resolver nor its count, and so no permission or paging check), `first` beyond
// every maximum counted by the cost limit before the page-size check could answer, `first` with
// `last`, the codes of the document limits, and an `application/graphql` body (it was read as empty).
import { GraphQLNonNull, getNamedType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Action, reachOf } from '../src/auth/permissions.js';
import { type Role, roles } from '../src/auth/principal.js';
import { schema } from '../src/graphql/schema.js';
import { GRAPHQL_LIMITS } from '../src/graphql/yoga.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { addGuest, addUser, newTenant } from './helpers/fixtures.js';
import { form } from './helpers/multipart.js';

let t: TestApp;
/** The same app answering on graphql-js alone (no compiled queries). */
let plain: TestApp;
beforeAll(async () => {
  t = await startApp();
  plain = await startApp({ GRAPHQL_COMPILED_QUERIES: 'false' }, { db: t.db });
});
afterAll(async () => {
  await plain?.close();
  await t?.close();
});

/** A token of `role` in a fresh tenant (venue and front-desk pinned to its default location). */
async function callerOf(role: Role): Promise<string> {
  const a = await newTenant(t.db.prisma);
  if (role === 'tenant') return a.token;
  const pinned = role === 'venue' || role === 'front-desk';
  return (await addUser(t.db.prisma, a.tenant_id, role, pinned ? { locationId: a.location_id } : {})).token;
}

/** Every root connection with the action it declares and its required arguments, written inline. */
const rootConnections = Object.values(schema.getQueryType()?.getFields() ?? {})
  .filter((f) => getNamedType(f.type).name.endsWith('Connection'))
  .map((f) => {
    const required = f.args.filter((a) => a.type instanceof GraphQLNonNull).map((a) => `${a.name}: "x"`);
    return { name: f.name, action: f.extensions.action as Action, args: required };
  });

/** `{ name(args) { selection } }`. */
function ask(field: (typeof rootConnections)[number], selection: string, more: string[] = []): string {
  const args = [...field.args, ...more];
  return `{ ${field.name}${args.length ? `(${args.join(', ')})` : ''} { ${selection} } }`;
}

const BAD_PAGE = {
  message: 'The first field must not be greater than 100.',
  extensions: {
    code: 'BAD_USER_INPUT',
    fields: { first: ['The first field must not be greater than 100.'] },
  },
};

describe.concurrent('a root connection asked only for __typename', () => {
  it('finds every root connection of the schema', () => {
    expect(rootConnections.map((f) => f.name)).toEqual(expect.arrayContaining(['auditLogs', 'webhooks']));
    expect(rootConnections.length).toBeGreaterThanOrEqual(13);
  });

  for (const app of ['compiled', 'graphql-js'] as const) {
    it(`is refused to a role the table refuses, as any other selection (${app})`, async () => {
      const on = app === 'compiled' ? t : plain;
      const pairs = roles.flatMap((role) =>
        rootConnections.filter((f) => reachOf(f.action, role) === false).map((f) => ({ role, f })),
      );
      // front-desk and venue users may not read the audit log, the webhooks, the API tokens, …
      expect(pairs.map((p) => `${p.role} ${p.f.name}`)).toEqual(
        expect.arrayContaining(['front-desk auditLogs', 'front-desk webhooks', 'venue auditLogs']),
      );
      const tokens = new Map<Role, string>();
      for (const role of new Set(pairs.map((p) => p.role))) tokens.set(role, await callerOf(role));
      for (const { role, f } of pairs) {
        const token = tokens.get(role) as string;
        const typename = await on.graphql(token, ask(f, '__typename'));
        expect(typename.json, `${role}: ${ask(f, '__typename')}`).toEqual({
          errors: [
            {
              message: 'This action is unauthorized.',
              locations: [{ line: 1, column: 3 }],
              path: [f.name],
              extensions: { code: 'FORBIDDEN' },
            },
          ],
          data: null,
        });
        // As the rows and the count answer.
        for (const selection of ['edges { cursor }', 'totalCount', 'pageInfo { hasNextPage }']) {
          const other = await on.graphql(token, ask(f, selection));
          expect(other.text, `${role}: ${ask(f, selection)}`).toBe(typename.text);
        }
      }
    });
  }

  it('answers a role the table allows, and checks the page size as for any other selection', async () => {
    const admin = await callerOf('tenant');
    const res = await t.graphql(admin, '{ auditLogs { __typename } webhooks { __typename } }');
    expect(res.json).toEqual({
      data: {
        auditLogs: { __typename: 'QueryAuditLogsConnection' },
        webhooks: { __typename: 'QueryWebhooksConnection' },
      },
    });
    for (const f of rootConnections.filter((c) => c.args.length === 0)) {
      const typename = await t.graphql(admin, ask(f, '__typename', ['first: 101']));
      expect(typename.json, ask(f, '__typename', ['first: 101'])).toEqual({
        errors: [{ ...BAD_PAGE, locations: [{ line: 1, column: 3 }], path: [f.name] }],
        data: null,
      });
      expect((await t.graphql(admin, ask(f, 'edges { cursor }', ['first: 101']))).text).toBe(typename.text);
    }
  });
});

describe.concurrent('a root connection’s filters', () => {
  it('are checked whatever the selection asks for: __typename, rows or count answer the same error', async () => {
    const admin = await callerOf('tenant');
    for (const [field, args, fields] of [
      ['auditLogs', 'resourceType: "room"', { resourceType: ['The selected resource type is invalid.'] }],
      [
        'guests',
        'birthDate: "31/12/1990"',
        { birthDate: ['The birth date field must match the format Y-m-d.'] },
      ],
      [
        'users',
        `email: "${'x'.repeat(256)}"`,
        { email: ['The email field must not be greater than 255 characters.'] },
      ],
    ] as const) {
      const typename = await t.graphql(admin, `{ ${field}(${args}) { __typename } }`);
      expect(typename.json, field).toEqual({
        errors: [
          {
            message: Object.values(fields)[0]?.[0],
            locations: [{ line: 1, column: 3 }],
            path: [field],
            extensions: { code: 'BAD_USER_INPUT', fields },
          },
        ],
        data: null,
      });
      for (const selection of [
        'edges { cursor }',
        'totalCount',
        'pageInfo { hasNextPage }',
        'totalCount edges { cursor }',
      ]) {
        const other = await t.graphql(admin, `{ ${field}(${args}) { ${selection} } }`);
        expect(other.text, `${field}: ${selection}`).toBe(typename.text);
      }
    }
  });
});

describe.concurrent('first/last beyond the maximum and the cost limit', () => {
  const refused =
    /^Query cost \d+ exceeds the limit of 50000: ask for fewer items \(first\/last\) or fewer nested lists\.$/;

  it('answers the page-size message for first: 2147483647, inline or as a variable, root or nested', async () => {
    const admin = await callerOf('tenant');
    const inline = await t.graphql(admin, '{ guests(first: 2147483647) { edges { node { id name } } } }');
    expect(inline.json).toEqual({
      errors: [{ ...BAD_PAGE, locations: [{ line: 1, column: 3 }], path: ['guests'] }],
      data: null,
    });
    const variable = await t.graphql(
      admin,
      'query ($n: Int) { guests(first: $n) { edges { node { devices { edges { node { mac } } } } } } }',
      { n: 2_147_483_647 },
    );
    expect(variable.json.errors, variable.text).toHaveLength(1);
    expect(variable.json.errors[0]).toMatchObject(BAD_PAGE);
    // A relation connection's `last` beyond its maximum, below a root page of 100.
    const nested = await t.graphql(
      admin,
      '{ guests(first: 100) { edges { node { sessions(last: 2147483647) { edges { node { id } } } } } } }',
    );
    expect(nested.json.errors, nested.text).toHaveLength(1);
    expect(nested.json.errors[0]).toMatchObject({
      message: 'The last field must not be greater than 100.',
      extensions: {
        code: 'BAD_USER_INPUT',
        fields: { last: ['The last field must not be greater than 100.'] },
      },
    });
  });

  it('still refuses a document costly for other reasons, counting such a page as the maximum', async () => {
    const admin = await callerOf('tenant');
    const tree =
      'edges { node { sessions(first: 100) { edges { node { id startTime device { mac } location { name } } } } } }';
    const huge = await t.graphql(admin, `{ guests(first: 2147483647) { ${tree} } }`);
    const hundred = await t.graphql(admin, `{ guests(first: 100) { ${tree} } }`);
    expect(huge.json.data, huge.text).toBeUndefined();
    expect(huge.json.errors).toHaveLength(1);
    expect(huge.json.errors[0].message).toMatch(refused);
    expect(huge.json.errors[0].extensions).toEqual(hundred.json.errors[0].extensions);
    expect(huge.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COSTLY', limit: 50_000 });
  });
});

describe.concurrent('webhookDeliveries of an unknown endpoint', () => {
  it('is NOT_FOUND whatever the selection, before its filters are read (REST answers 404 first too)', async () => {
    const admin = await callerOf('tenant');
    const answers: string[] = [];
    for (const args of ['webhookId: "no-such-endpoint"', 'webhookId: "no-such-endpoint", eventId: "abc"']) {
      for (const selection of ['__typename', 'totalCount', 'edges { cursor }', 'pageInfo { hasNextPage }']) {
        const res = await t.graphql(admin, `{ webhookDeliveries(${args}) { ${selection} } }`);
        expect(res.json.errors?.[0]?.extensions?.code, `${args}: ${selection}`).toBe('NOT_FOUND');
        expect(res.json.errors[0].path).toEqual(['webhookDeliveries']);
        answers.push(res.text);
      }
    }
    expect(new Set(answers).size).toBe(1);
  });
});

describe.concurrent('first with before, last with after, before with after', () => {
  it('are refused with Laravel’s prohibits message, root or nested', async () => {
    const admin = await callerOf('tenant');
    for (const [args, field, other] of [
      ['first: 2, before: "x"', 'first', 'before'],
      ['last: 2, after: "x"', 'last', 'after'],
      ['before: "x", after: "y"', 'before', 'after'],
    ] as const) {
      const message = `The ${field} field prohibits ${other} from being present.`;
      // At the root, the field's own error; nested, refused at the nested field before any ran.
      const root = `{ guests(${args}) { totalCount } }`;
      const nested = `{ locations(first: 1) { edges { node { guests(${args}) { totalCount } } } } }`;
      const error = { message, extensions: { code: 'BAD_USER_INPUT', fields: { [field]: [message] } } };
      expect((await t.graphql(admin, root)).json, root).toEqual({
        errors: [{ ...error, locations: [{ line: 1, column: 3 }], path: ['guests'] }],
        data: null,
      });
      expect((await t.graphql(admin, nested)).json, nested).toEqual({
        errors: [{ ...error, locations: [{ line: 1, column: nested.indexOf('guests(') + 1 }] }],
      });
    }
  });
});

describe.concurrent('first with last', () => {
  const PROHIBITED = 'The first field prohibits last from being present.';
  const prohibited = (path: string[]) => ({
    errors: [
      {
        message: PROHIBITED,
        locations: [{ line: 1, column: 3 }],
        path,
        extensions: { code: 'BAD_USER_INPUT', fields: { first: [PROHIBITED] } },
      },
    ],
    data: null,
  });

  it('is refused on a root connection, whatever the selection', async () => {
    const admin = await callerOf('tenant');
    for (const selection of ['edges { node { id } }', 'totalCount', '__typename']) {
      const res = await t.graphql(admin, `{ guests(first: 2, last: 3) { ${selection} } }`);
      expect(res.json, selection).toEqual(prohibited(['guests']));
    }
    const variables = await t.graphql(
      admin,
      'query ($f: Int, $l: Int) { webhooks(first: $f, last: $l) { totalCount } }',
      { f: 0, l: 0 },
    );
    expect(variables.json.errors[0]).toMatchObject({
      message: PROHIBITED,
      extensions: { code: 'BAD_USER_INPUT', fields: { first: [PROHIBITED] } },
    });
    // With `first` over the maximum too: every message of the field, REST's summary.
    const both = await t.graphql(admin, '{ guests(first: 200, last: 3) { totalCount } }');
    expect(both.json.errors[0]).toMatchObject({
      message: 'The first field must not be greater than 100. (and 1 more error)',
      extensions: { fields: { first: ['The first field must not be greater than 100.', PROHIBITED] } },
    });
    // One of them alone pages as before.
    for (const args of ['first: 2', 'last: 2']) {
      const res = await t.graphql(admin, `{ guests(${args}) { totalCount } }`);
      expect(res.json, args).toEqual({ data: { guests: { totalCount: 0 } } });
    }
  });

  it('is refused on a relation connection with the same message and fields', async () => {
    const admin = await callerOf('tenant');
    // Refused at the nested field, before any field ran (no data), on both execution paths.
    const at = (query: string, field: string) => ({
      errors: [
        {
          message: PROHIBITED,
          locations: [{ line: 1, column: query.indexOf(field) + 1 }],
          extensions: { code: 'BAD_USER_INPUT', fields: { first: [PROHIBITED] } },
        },
      ],
    });
    for (const query of [
      '{ locations { edges { node { guests(first: 1, last: 1) { edges { node { id } } } } } } }',
      '{ locations { edges { node { guests(first: 1, last: 1) { __typename } } } } }',
    ]) {
      expect((await t.graphql(admin, query)).json, query).toEqual(at(query, 'guests('));
      expect((await plain.graphql(admin, query)).json, query).toEqual(at(query, 'guests('));
    }
    const devices = '{ guests { edges { node { devices(first: 1, last: 1) { edges { node { mac } } } } } } }';
    expect((await t.graphql(admin, devices)).json).toEqual(at(devices, 'devices('));
  });
});

describe.concurrent('the limits on a document', () => {
  /** The one error of a request refused before it ran, under both response types. */
  async function refusal(query: string): Promise<{ json: TestResponse; graphqlResponse: TestResponse }> {
    const token = await callerOf('tenant');
    const json = await t.graphql(token, query);
    const graphqlResponse = await t.request('POST', '/graphql', {
      token,
      body: { query },
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    });
    return { json, graphqlResponse };
  }

  const ofType = (n: number): string => (n === 0 ? 'name' : `ofType { ${ofType(n - 1)} }`);
  const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: viewer { id }`).join(' ');
  const nested = `{ sessionsByIp(ipAddresses: ${'['.repeat(40)}${']'.repeat(40)}) { ipAddress } }`;
  for (const [kind, query, message, code] of [
    [
      'depth',
      `{ __type(name: "Location") { fields { type { ${ofType(8)} } } } }`,
      'Query depth limit of 10 exceeded, found 12.',
      'GRAPHQL_VALIDATION_FAILED',
    ],
    ['aliases', `{ ${aliases} }`, 'Aliases limit of 15 exceeded, found 16.', 'GRAPHQL_VALIDATION_FAILED'],
    [
      'tokens',
      `{ ${'__typename '.repeat(3000)}}`,
      'Syntax Error: Token limit of 3000 exceeded.',
      'GRAPHQL_PARSE_FAILED',
    ],
    [
      'nesting',
      nested,
      `Syntax Error: Nesting limit of ${GRAPHQL_LIMITS.nesting} exceeded.`,
      'GRAPHQL_PARSE_FAILED',
    ],
  ] as const) {
    it(`answers the ${kind} limit with ${code}, as every error of its step`, async () => {
      const { json, graphqlResponse } = await refusal(query);
      for (const res of [json, graphqlResponse]) {
        expect(res.json.data, res.text).toBeUndefined();
        expect(res.json.errors).toHaveLength(1);
        expect(res.json.errors[0].message).toBe(message);
        expect(res.json.errors[0].extensions).toEqual({ code });
      }
      expect([json.status, graphqlResponse.status]).toEqual([200, 400]);
    });
  }

  it('answers other parse and validation errors with the same codes', async () => {
    const token = await callerOf('tenant');
    const parse = await t.graphql(token, '{ viewer { id }');
    expect(parse.json.errors[0].extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED' });
    const validation = await t.graphql(token, '{ viewer { nope } }');
    expect(validation.json.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});

describe.concurrent('a body sent as application/graphql', () => {
  it('is read as the query (as graphql-yoga reads it), not as an empty one', async () => {
    const token = await callerOf('tenant');
    for (const type of ['application/graphql', 'application/graphql; charset=utf-8']) {
      const res = await t.request('POST', '/graphql', {
        token,
        rawBody: '{ viewer { role } }',
        headers: { 'content-type': type },
      });
      expect(res.status, type).toBe(200);
      expect(res.json, type).toEqual({ data: { viewer: { role: 'tenant' } } });
    }
    // The same query as JSON answers.
    const json = await t.graphql(token, '{ viewer { role } }');
    expect(json.json).toEqual({ data: { viewer: { role: 'tenant' } } });
  });
});

describe.concurrent('another method or body type on /graphql', () => {
  it('is 405 with Allow: GET, POST, in GraphQL’s error format (it was REST’s 404)', async () => {
    const token = await callerOf('tenant');
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await t.app.fastify.inject({
        method,
        url: '/graphql',
        headers: { authorization: `Bearer ${token}` },
      });
      expect([res.statusCode, res.headers.allow], method).toEqual([405, 'GET, POST']);
      expect(res.json()).toEqual({
        errors: [{ message: 'Method Not Allowed.', extensions: { code: 'METHOD_NOT_ALLOWED' } }],
      });
    }
  });

  it('a body of a type no request is read from is 415 in GraphQL’s error format (Yoga’s had no body)', async () => {
    const token = await callerOf('tenant');
    // A multipart form too: Yoga read its fields, but not `variables` as a form's (probe S).
    const multipart = form([
      { name: 'query', value: 'query($n: Int) { locations(first: $n) { totalCount } }' },
      { name: 'variables', value: '{"n":1}' },
    ]);
    for (const [type, payload] of [
      ['text/plain', '{ viewer { role } }'],
      [multipart.contentType, multipart.body],
      // Types no parser reads: they were answered `Must provide query string.` (probe V).
      ['application/xml', '{"query":"{ __typename }"}'],
      ['application/octet-stream', '{"query":"{ __typename }"}'],
      ['foo/bar', '{"query":"{ __typename }"}'],
    ] as const) {
      const other = await t.app.fastify.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        payload,
      });
      expect([other.statusCode, other.json().errors[0].extensions.code], type).toEqual([
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ]);
    }
    const res = await t.app.fastify.inject({
      method: 'POST',
      url: '/graphql',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      payload: '{ viewer { role } }',
    });
    expect(res.statusCode).toBe(415);
    // Written as every GraphQL answer is, `/` unescaped (not as REST's PHP-style JSON; probe S).
    expect(res.body).toBe(
      JSON.stringify({
        errors: [
          {
            message: 'Unsupported Media Type: send application/json, application/graphql or a form.',
            extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
          },
        ],
      }),
    );
  });
});

describe.concurrent('HEAD', () => {
  it('is answered as GET, without the body: a query’s status and headers (it was 405; probe H)', async () => {
    const token = await callerOf('tenant');
    const ask = (method: 'GET' | 'HEAD', query: string) =>
      t.app.fastify.inject({
        method,
        url: `/graphql?query=${encodeURIComponent(query)}`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
    const get = await ask('GET', '{ __typename }');
    const head = await ask('HEAD', '{ __typename }');
    expect([
      head.statusCode,
      head.headers['content-type'],
      head.headers['content-length'],
      head.body,
    ]).toEqual([get.statusCode, get.headers['content-type'], get.headers['content-length'], '']);
    expect(get.json()).toEqual({ data: { __typename: 'Query' } });
    // A mutation is no more run by HEAD than by GET.
    const mutation = await ask('HEAD', 'mutation { __typename }');
    expect([mutation.statusCode, mutation.headers.allow, mutation.body]).toEqual([405, 'POST', '']);
  });
});

describe.concurrent('cross-origin refusals', () => {
  it('a refusal made before Yoga carries the CORS headers Yoga’s answers carry, so a browser can read it (probe H)', async () => {
    const token = await callerOf('tenant');
    const cors = (res: { headers: Record<string, unknown> }) => [
      res.headers['access-control-allow-origin'],
      res.headers['access-control-allow-credentials'],
      res.headers.vary,
    ];
    const expected = ['https://dash.example', 'true', 'Origin'];
    const ask = (authorization: string, payload: string, type = 'application/json') =>
      t.app.fastify.inject({
        method: 'POST',
        url: '/graphql',
        headers: { origin: 'https://dash.example', authorization, 'content-type': type },
        payload,
      });
    const yoga = await ask(`Bearer ${token}`, '{"query":"{ __typename }"}');
    expect([yoga.statusCode, ...cors(yoga)]).toEqual([200, ...expected]);
    for (const [status, res] of [
      [401, await ask('Bearer nope', '{"query":"{ __typename }"}')],
      [400, await ask(`Bearer ${token}`, '{')],
      [415, await ask(`Bearer ${token}`, '{ __typename }', 'text/plain')],
    ] as const) {
      expect([res.statusCode, ...cors(res)], String(status)).toEqual([status, ...expected]);
    }
  });
});

describe.concurrent('an Accept that takes none of the answer’s types', () => {
  it('is 406 NOT_ACCEPTABLE in GraphQL’s error format (Yoga’s 406 had an empty text/plain body; probe R)', async () => {
    const token = await callerOf('tenant');
    const subscription = JSON.stringify({ query: 'subscription { events { id } }' });
    for (const [accept, payload] of [
      ['application/json', subscription],
      ['application/graphql-response+json', subscription],
      ['text/csv', JSON.stringify({ query: '{ __typename }' })],
    ] as const) {
      const res = await t.app.fastify.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept },
        payload,
      });
      expect([res.statusCode, res.headers['content-type'], res.json()], accept).toEqual([
        406,
        'application/json; charset=utf-8',
        {
          errors: [
            {
              message:
                'Not Acceptable: a query or mutation answers application/json or application/graphql-response+json, a subscription text/event-stream or multipart/mixed.',
              extensions: { code: 'NOT_ACCEPTABLE' },
            },
          ],
        },
      ]);
    }
  });
});

describe.concurrent('a request in URL parameters (GET, or an HTML form’s body)', () => {
  it('a form’s body carries JSON variables, typed, as graphql-yoga reads them', async () => {
    const token = await callerOf('tenant');
    const query =
      'query($n: Int, $b: Boolean!) { locations(first: $n) { totalCount } viewer { role @include(if: $b) } }';
    const res = await t.request('POST', '/graphql', {
      token,
      rawBody: new URLSearchParams({ query, variables: '{"n":2,"b":true}' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ data: { locations: { totalCount: 1 }, viewer: { role: 'tenant' } } });
  });

  it('variables or extensions that are no JSON (or hold an unpaired surrogate) are 400, not an internal error', async () => {
    const token = await callerOf('tenant');
    const cases: [string, string][] = [
      ['variables', '{bad'],
      ['extensions', '{bad'],
      ['variables', '{"n":"\\ud800"}'],
    ];
    for (const [name, text] of cases) {
      const params = new URLSearchParams({ query: '{ __typename }', [name]: text });
      const get = await t.request('GET', `/graphql?${params}`, { token });
      const form = await t.request('POST', '/graphql', {
        token,
        rawBody: params.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      for (const res of [get, form]) {
        expect(res.status, `${name}=${text}: ${res.text}`).toBe(400);
        expect(res.json).toEqual({
          errors: [
            { message: `Malformed JSON in the ${name} parameter.`, extensions: { code: 'BAD_REQUEST' } },
          ],
        });
      }
    }
    // Empty is none, as Yoga reads it.
    const empty = await t.request(
      'GET',
      `/graphql?${new URLSearchParams({ query: '{ __typename }', variables: '' })}`,
      {
        token,
      },
    );
    expect(empty.json).toEqual({ data: { __typename: 'Query' } });
  });
});

describe.concurrent('the next page after a row that left the list', () => {
  it('starts after that row, leaving none out (a guest moved to another location between two pages)', async () => {
    const a = await newTenant(t.db.prisma);
    const venue = (await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id })).token;
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await addGuest(t.db.prisma, a.tenant_id, a.location_id)).id);
    const page = async (app: TestApp, after?: string) => {
      const res = await app.graphql(
        venue,
        'query($after: String) { guests(first: 2, after: $after) { edges { cursor node { id } } } }',
        { after },
      );
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.guests.edges as { cursor: string; node: { id: string } }[];
    };
    const first = await page(t);
    expect(first).toHaveLength(2);
    const last = first[1] as { cursor: string; node: { id: string } };
    const rest = ids.filter((id) => !first.some((e) => e.node.id === id));
    // The last row of the page leaves the venue's list (moved by the tenant admin).
    const moved = await t.request('PUT', `/api/v1/guests/${last.node.id}`, {
      token: a.token,
      body: { name: 'Moved', location_id: other.id },
    });
    expect(moved.status, moved.text).toBe(200);
    for (const app of [t, plain]) {
      const next = await page(app, last.cursor);
      expect(next.map((e) => e.node.id).sort()).toEqual([...rest].sort());
    }
  });

  it('inside a relation too: a location’s guests paged backwards before a guest that moved away', async () => {
    const a = await newTenant(t.db.prisma);
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await addGuest(t.db.prisma, a.tenant_id, a.location_id)).id);
    const nested = async (app: TestApp, args: string) => {
      const res = await app.graphql(
        a.token,
        `query($l: ID!) { location(id: $l) { guests(${args}) { edges { cursor node { id } } } } }`,
        { l: a.location_id },
      );
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.location.guests.edges as { cursor: string; node: { id: string } }[];
    };
    const all = await nested(t, 'first: 10');
    expect(all).toHaveLength(5);
    const third = all[2] as { cursor: string; node: { id: string } };
    const moved = await t.request('PUT', `/api/v1/guests/${third.node.id}`, {
      token: a.token,
      body: { name: 'Moved', location_id: other.id },
    });
    expect(moved.status, moved.text).toBe(200);
    for (const app of [t, plain]) {
      const before = await nested(app, `last: 2, before: "${third.cursor}"`);
      expect(before.map((e) => e.node.id)).toEqual(all.slice(0, 2).map((e) => e.node.id));
      const after = await nested(app, `first: 2, after: "${third.cursor}"`);
      expect(after.map((e) => e.node.id)).toEqual(all.slice(3, 5).map((e) => e.node.id));
    }
  });

  it('ends before that row when paging backwards (last/before), leaving none out', async () => {
    const a = await newTenant(t.db.prisma);
    const venue = (await addUser(t.db.prisma, a.tenant_id, 'venue', { locationId: a.location_id })).token;
    const other = await t.db.prisma.location.create({ data: { tenantId: a.tenant_id, name: 'Elsewhere' } });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await addGuest(t.db.prisma, a.tenant_id, a.location_id)).id);
    const page = async (app: TestApp, before?: string) => {
      const res = await app.graphql(
        venue,
        'query($before: String) { guests(last: 2, before: $before) { edges { cursor node { id } } } }',
        { before },
      );
      expect(res.json.errors, res.text).toBeUndefined();
      return res.json.data.guests.edges as { cursor: string; node: { id: string } }[];
    };
    const lastPage = await page(t);
    expect(lastPage).toHaveLength(2);
    const first = lastPage[0] as { cursor: string; node: { id: string } };
    const rest = ids.filter((id) => !lastPage.some((e) => e.node.id === id));
    const moved = await t.request('PUT', `/api/v1/guests/${first.node.id}`, {
      token: a.token,
      body: { name: 'Moved', location_id: other.id },
    });
    expect(moved.status, moved.text).toBe(200);
    for (const app of [t, plain]) {
      const previous = await page(app, first.cursor);
      expect(previous.map((e) => e.node.id).sort()).toEqual([...rest].sort());
    }
  });
});

describe.concurrent('a crafted cursor', () => {
  // Every connection pages by string ids: a cursor the plugin decodes to another value (a date, a
  // number, null, an object) is refused as a client error, not sent to the database (probe S).
  const crafted = [
    'raw:eHg=',
    `raw:${'A'.repeat(10_000)}`,
    'X:1',
    'I:5',
    'N:5',
    'D:0',
    'D:notadate',
    'D:99999999999999999',
    'Z:',
    'O:{}',
    'B:abc',
    'T:[]',
    'J:5',
    'J:null',
    // An id no row can have: NUL reached the database, a 500-like NUL error at the root field and
    // nothing at all from a nested `totalCount` (probe Q).
    'S:\0',
    'S:a\0b',
  ];
  // `raw:`: the cursor as written (not the plugin's `GPC:`), which the plugin cannot read; it repeated
  // it in its message, however long (probe V).
  const cursorOf = (chunk: string) =>
    chunk.startsWith('raw:') ? chunk.slice(4) : Buffer.from(`GPC:${chunk}`).toString('base64');

  it('is refused by every root connection, either way it pages', async () => {
    const admin = await callerOf('tenant');
    const hook = await t.request('POST', '/api/v1/webhooks', {
      token: admin,
      body: { url: 'https://93.184.215.14/hook', events: ['*'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const argsOf = (f: (typeof rootConnections)[number]) =>
      f.name === 'webhookDeliveries' ? { ...f, args: [`webhookId: "${hook.json.data.id}"`] } : f;
    for (const f of rootConnections.map(argsOf)) {
      // An id's cursor pages (here to nothing).
      const named = await t.graphql(admin, ask(f, 'edges { cursor }', [`after: "${cursorOf('S:abc')}"`]));
      expect(named.json.errors, `${f.name}: ${named.text}`).toBeUndefined();
      for (const chunk of crafted) {
        for (const more of [[`after: "${cursorOf(chunk)}"`], [`last: 1, before: "${cursorOf(chunk)}"`]]) {
          const query = ask(f, 'edges { cursor }', more);
          const res = await t.graphql(admin, query);
          expect(res.json.errors?.[0], `${chunk}: ${query}`).toMatchObject({
            message: 'Invalid cursor.',
            extensions: { code: 'BAD_USER_INPUT' },
          });
        }
      }
    }
  });

  it('is refused by every relation connection, at its field', async () => {
    const admin = await callerOf('tenant');
    for (const chunk of crafted) {
      const after = `after: "${cursorOf(chunk)}"`;
      for (const [query, field] of [
        [`{ guests { edges { node { devices(${after}) { totalCount } } } } }`, 'devices('],
        [`{ guestDevices { edges { node { sessions(${after}) { totalCount } } } } }`, 'sessions('],
        [`{ guests { edges { node { sessions(${after}) { totalCount } } } } }`, 'sessions('],
        [`{ locations { edges { node { guests(${after}) { totalCount } } } } }`, 'guests('],
      ] as const) {
        const res = await t.graphql(admin, query);
        expect(res.json.errors, query).toHaveLength(1);
        expect(res.json.errors[0], query).toMatchObject({
          message: 'Invalid cursor.',
          locations: [{ line: 1, column: query.indexOf(field) + 1 }],
          extensions: { code: 'BAD_USER_INPUT' },
        });
        expect(res.json.data, query).toBeUndefined();
      }
    }
  });
});
