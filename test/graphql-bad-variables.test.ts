// Variables of the wrong type, and absurdly nested input, are the caller's errors: graphql-js's own
// coercion message (without the value it printed) with a client code, never "Unexpected error.";
// request errors (no `data`) answer 200 under `application/json` and 400 under
// `application/graphql-response+json` (GraphQL over HTTP).
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../src/graphql/yoga.js';
import { startApp, type TestApp, type TestResponse } from './helpers/app.js';
import { newTenant } from './helpers/fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = (await newTenant(t.db.prisma)).token;
});
afterAll(async () => {
  await t.close();
});

const SESSIONS_BY_IP = 'query Q($ips: [String!]!) { sessionsByIp(ipAddresses: $ips) { ipAddress } }';
const FIRST = 'query Q($first: Int) { locations(first: $first) { totalCount } }';
const NAME = 'query Q($name: String) { locations(name: $name) { totalCount } }';
const LOCATION = 'query Q($id: ID!) { location(id: $id) { id } }';
const CREATE = 'mutation M($input: LocationInput!) { createLocation(input: $input) { id } }';

/** `"1.1.1.1"` inside `depth` lists, as JSON text (JSON.stringify would overflow on the deep ones). */
const nested = (depth: number): string => `${'['.repeat(depth)}"1.1.1.1"${']'.repeat(depth)}`;

const MEDIA = {
  json: { accept: 'application/json', status: 200 },
  'graphql-response+json': { accept: 'application/graphql-response+json', status: 400 },
} as const;

async function post(query: string, variablesJson: string, accept: string): Promise<TestResponse> {
  const rawBody = `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`;
  return t.request('POST', '/graphql', { token, rawBody, headers: { accept } });
}

interface Probe {
  name: string;
  query: string;
  variables: string;
  message: string;
  code: string;
  line: number;
  column: number;
}

const variableError = (p: Omit<Probe, 'code' | 'line'>): Probe => ({ ...p, code: 'BAD_USER_INPUT', line: 1 });
const nestingError = (name: string, depth: number): Probe => ({
  name,
  query: SESSIONS_BY_IP,
  variables: `{"ips":${nested(depth)}}`,
  message: `Variable "$ips" is nested deeper than ${GRAPHQL_LIMITS.nesting} levels.`,
  code: 'BAD_USER_INPUT',
  line: 0,
  column: 0,
});
const literalError = (name: string, depth: number): Probe => ({
  name,
  query: `{ sessionsByIp(ipAddresses: ${nested(depth)}) { ipAddress } }`,
  variables: '{}',
  message: `Syntax Error: Nesting limit of ${GRAPHQL_LIMITS.nesting} exceeded.`,
  code: 'GRAPHQL_PARSE_FAILED',
  line: 1,
  // `{` and `(` are two levels; the first bracket past the limit.
  column: 29 + GRAPHQL_LIMITS.nesting - 2,
});

const PROBES: Probe[] = [
  variableError({
    name: '[String!]! given a list of lists',
    query: SESSIONS_BY_IP,
    variables: '{"ips":[["1.1.1.1"]]}',
    message:
      'Variable "$ips" got invalid value at "ips[0]"; String cannot represent a non string value: ["1.1.1.1"]',
    column: 9,
  }),
  variableError({
    name: '[String!]! given a number',
    query: SESSIONS_BY_IP,
    variables: '{"ips":5}',
    message: 'Variable "$ips" got invalid value; String cannot represent a non string value: 5',
    column: 9,
  }),
  variableError({
    name: 'Int given a string',
    query: FIRST,
    variables: '{"first":"abc"}',
    message: 'Variable "$first" got invalid value; Int cannot represent non-integer value: "abc"',
    column: 9,
  }),
  variableError({
    name: 'String given an object',
    query: NAME,
    variables: '{"name":{}}',
    message: 'Variable "$name" got invalid value; String cannot represent a non string value: {}',
    column: 9,
  }),
  variableError({
    name: 'ID! given a list',
    query: LOCATION,
    variables: '{"id":[]}',
    message: 'Variable "$id" got invalid value; ID cannot represent value: []',
    column: 9,
  }),
  variableError({
    name: 'an input object with an unknown field',
    query: CREATE,
    variables: '{"input":{"name":"Venue","bogus":1}}',
    message: 'Variable "$input" got invalid value; Field "bogus" is not defined by type "LocationInput".',
    column: 12,
  }),
  nestingError('a list variable nested 1 000 deep', 1000),
  nestingError('a list variable nested 10 000 deep', 10_000),
  // Close to the 1 MiB body limit.
  nestingError('a list variable nested 400 000 deep', 400_000),
  literalError('a list literal nested 1 000 deep', 1000),
  literalError('a list literal nested 5 000 deep', 5000),
];

describe.each(Object.entries(MEDIA))('Accept: %s', (_label, media) => {
  it.concurrent.each(PROBES)('$name: a client error', async (p) => {
    const started = Date.now();
    const res = await post(p.query, p.variables, media.accept);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status, res.text).toBe(media.status);
    expect(res.headers['content-type']).toBe(`${media.accept}; charset=utf-8`);
    expect(res.json).toEqual({
      errors: [
        {
          message: p.message,
          ...(p.line ? { locations: [{ line: p.line, column: p.column }] } : {}),
          extensions: { code: p.code },
        },
      ],
    });
  });

  it('reports every bad variable at once', async () => {
    const query =
      'query Q($first: Int, $name: String) { locations(first: $first, name: $name) { totalCount } }';
    const res = await post(query, '{"first":"abc","name":{}}', media.accept);
    expect(res.status).toBe(media.status);
    expect(res.json.errors.map((e: { message: string }) => e.message)).toEqual([
      'Variable "$first" got invalid value; Int cannot represent non-integer value: "abc"',
      'Variable "$name" got invalid value; String cannot represent a non string value: {}',
    ]);
    expect(res.json.errors.map((e: { extensions: unknown }) => e.extensions)).toEqual([
      { code: 'BAD_USER_INPUT' },
      { code: 'BAD_USER_INPUT' },
    ]);
  });

  it('names where and why a variable is invalid, never its value (a password, an avatar)', async () => {
    const query = 'mutation M($i: UserInput!) { createUser(input: $i) { id } }';
    const secret = 'Echo!Secr3tPw';
    const variables = { i: { name: 'N', email: 'e@x.test', password: secret, bogus: 1 } };
    const res = await post(query, JSON.stringify(variables), media.accept);
    expect(res.status).toBe(media.status);
    expect(res.text).not.toContain(secret);
    expect(res.json.errors.map((e: { message: string }) => e.message)).toEqual([
      'Variable "$i" got invalid value; Field "bogus" is not defined by type "UserInput".',
    ]);
    const tags = await post(
      'mutation M($i: LocationInput!) { createLocation(input: $i) { id } }',
      JSON.stringify({ i: { name: 'a at "i.x"', description: 5 } }),
      media.accept,
    );
    expect(tags.json.errors.map((e: { message: string }) => e.message)).toEqual([
      'Variable "$i" got invalid value at "i.description"; String cannot represent a non string value: 5',
    ]);
  });

  it('a missing required variable is a client error too', async () => {
    const res = await post(LOCATION, '{}', media.accept);
    expect(res.status).toBe(media.status);
    expect(res.json).toEqual({
      errors: [
        {
          message: 'Variable "$id" of required type "ID!" was not provided.',
          locations: [{ line: 1, column: 9 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
  });
});

describe('a subscription', () => {
  it('names where and why a variable is invalid without its value, as a query does (its message printed the value; probe R)', async () => {
    const res = await t.app.fastify.inject({
      method: 'POST',
      url: '/graphql',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
      },
      payload: JSON.stringify({
        query: 'subscription S($t: [String!], $a: ID) { events(types: $t, after: $a) { id } }',
        variables: { t: ['guest.created', 'x', { ok: 'Echo!Secr3tPw' }], a: 5.5 },
      }),
    });
    const data = /^data: (.+)$/m.exec(res.body)?.[1] ?? 'null';
    expect(JSON.parse(data)).toEqual({
      errors: [
        {
          message:
            'Variable "$t" got invalid value at "t[2]"; String cannot represent a non string value: { ok: "Echo!Secr3tPw" }',
          locations: [{ line: 1, column: 16 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
        {
          message: 'Variable "$a" got invalid value; ID cannot represent value: 5.5',
          locations: [{ line: 1, column: 31 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    });
  });
});

describe('the nesting limit', () => {
  it(`lets ${GRAPHQL_LIMITS.nesting} levels reach coercion, refuses one more`, async () => {
    const at = await post(SESSIONS_BY_IP, `{"ips":${nested(GRAPHQL_LIMITS.nesting)}}`, 'application/json');
    expect(at.json.errors[0].message).toMatch(
      /^Variable "\$ips" got invalid value at "ips\[0\]"; String cannot/,
    );
    expect(at.json.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    const over = await post(
      SESSIONS_BY_IP,
      `{"ips":${nested(GRAPHQL_LIMITS.nesting + 1)}}`,
      'application/json',
    );
    expect(over.json.errors[0].message).toBe(
      `Variable "$ips" is nested deeper than ${GRAPHQL_LIMITS.nesting} levels.`,
    );
  });

  // 255 brackets: far past the nesting limit of 32, and within the filter's length bound.
  it('counts brackets, not characters inside strings', async () => {
    const res = await post(
      'query Q($name: String) { locations(name: $name) { totalCount } }',
      `{"name":${JSON.stringify('['.repeat(255))}}`,
      'application/json',
    );
    expect(res.json, res.text).toEqual({ data: { locations: { totalCount: 0 } } });
    const literal = await post(
      `{ locations(name: "${'['.repeat(255)}") { totalCount } }`,
      '{}',
      'application/json',
    );
    expect(literal.json, literal.text).toEqual({ data: { locations: { totalCount: 0 } } });
  });

  it("GraphiQL's introspection query stays under it", async () => {
    const res = await post(getIntrospectionQuery(), '{}', 'application/json');
    expect(res.json.errors, res.text.slice(0, 300)).toBeUndefined();
    expect(res.json.data.__schema.queryType).toMatchObject({ name: 'Query' });
  });

  it('well-typed variables still answer data', async () => {
    const res = await post(SESSIONS_BY_IP, '{"ips":["10.0.0.1"]}', 'application/graphql-response+json');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { sessionsByIp: [] } });
  });
});

describe('a body that is no JSON object', () => {
  // An array of anything but objects is no batch (`[1,2]` was called one; probe R).
  it.concurrent.each(['', 'null', '[]', '"x"', '[1,2]', '[{"query":"{ __typename }"},null]', '[[]]'])(
    '%j: 400 "Malformed JSON body.", no parser detail',
    async (rawBody) => {
      const res = await t.request('POST', '/graphql', {
        token,
        rawBody,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.text).toBe(
        '{"errors":[{"message":"Malformed JSON body.","extensions":{"code":"BAD_REQUEST"}}]}',
      );
    },
  );
});

describe('a request parameter of the wrong type', () => {
  it.concurrent.each([
    ['{"query":42}', 'Expected "query" param to be a string, but given number.'],
    // It was looked up as a name: OPERATION_RESOLUTION_FAILURE (probe R).
    [
      '{"query":"{ __typename }","operationName":5}',
      'Expected "operationName" param to be a string, but given number.',
    ],
    [
      '{"query":"{ __typename }","operationName":["Q"]}',
      'Expected "operationName" param to be a string, but given array.',
    ],
  ])('%s: 400 BAD_REQUEST naming it, whatever the Accept', async (rawBody, message) => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const res = await t.request('POST', '/graphql', {
        token,
        rawBody,
        headers: { 'content-type': 'application/json', accept },
      });
      expect([res.status, res.json], accept).toEqual([
        400,
        { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] },
      ]);
    }
  });

  it('a null operationName is none', async () => {
    const res = await t.request('POST', '/graphql', {
      token,
      rawBody: '{"query":"{ __typename }","operationName":null}',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect([res.status, res.json]).toEqual([200, { data: { __typename: 'Query' } }]);
  });
});

describe('a JSON array of operations (a batch; batching is off)', () => {
  it('400 "Batching is not supported.", as README says (probe R)', async () => {
    const res = await t.request('POST', '/graphql', {
      token,
      rawBody: '[{"query":"{ __typename }"},{"query":"{ __typename }"}]',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [{ message: 'Batching is not supported.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});

describe('a string PHP’s json_decode refuses', () => {
  it('an unpaired surrogate in the variables, however deep: 400 "Malformed JSON body.", as REST answers (nothing stored)', async () => {
    const query = 'mutation($i: LocationInput!) { createLocation(input: $i) { id } }';
    const deep = `${'['.repeat(2000)}"x\\ud800"${']'.repeat(2000)}`;
    for (const variables of [
      '{"i":{"name":"Sur\\ud800rogate"}}',
      '{"i":{"name":"Fine name"},"x\\udc00":1}',
      `{"i":{"name":"Deep one"},"d":${deep}}`,
    ]) {
      const res = await t.request('POST', '/graphql', {
        token,
        rawBody: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      });
      expect(res.status, variables.slice(0, 60)).toBe(400);
      expect(res.text).toBe(
        '{"errors":[{"message":"Malformed JSON body.","extensions":{"code":"BAD_REQUEST"}}]}',
      );
    }
    // A paired one is a character like any other.
    const paired = await t.graphql(token, query, { i: { name: 'Smile \ud83d\ude00 venue' } });
    expect(paired.json.errors, paired.text).toBeUndefined();
  });
});

describe('a JSON object without a query', () => {
  it('{} answers as {"variables":{}} does: Must provide query string. (it was called malformed)', async () => {
    const answers = [];
    for (const rawBody of ['{}', '{"variables":{}}', '{ }']) {
      const res = await t.request('POST', '/graphql', {
        token,
        rawBody,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
      });
      answers.push([res.status, res.text]);
    }
    // 400 whatever the Accept, as a batch or malformed JSON (it was 200 under application/json; probe O).
    expect(answers[0]).toEqual([
      400,
      '{"errors":[{"message":"Must provide query string.","extensions":{"code":"BAD_REQUEST"}}]}',
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    const get = await t.request('GET', '/graphql', { token, headers: { accept: 'application/json' } });
    expect([get.status, get.text]).toEqual(answers[0]);
  });
});
