// Compiled GraphQL queries (src/graphql/compiled-execution.ts) answer exactly as graphql-js does.
// For every root query field, a document selecting every field of its type and, three relations
// deep, of the types it reaches (derived from the built schema, so a new field is covered at once)
// is sent to two apps on the same data: one compiled, one with GRAPHQL_COMPILED_QUERIES=false. The
// bodies must be byte-equal, for a tenant admin and for a user pinned to one location.

import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  type GraphQLField,
  type GraphQLObjectType,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  parse,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../src/auth/principal.js';
import { loadConfig } from '../src/config.js';
import { compiledQueries, rowReadingSchema } from '../src/graphql/compiled-execution.js';
import { schema } from '../src/graphql/schema.js';
import { recordStatements, startApp, type TestApp } from './helpers/app.js';
import { addDevice, addGuest, addHierarchy, addSession, addUser, newTenant } from './helpers/fixtures.js';

let compiled: TestApp;
let plain: TestApp;
const tokens: Record<string, string> = {};
/** The id given to a root field's required `id` argument, by the type it returns. */
const idOf: Record<string, string> = {};

beforeAll(async () => {
  compiled = await startApp();
  plain = await startApp({ GRAPHQL_COMPILED_QUERIES: 'false' }, { db: compiled.db });
  const p = compiled.db.prisma;
  const a = await newTenant(p);
  const tenantId = a.tenant_id;
  tokens.admin = a.token;
  const other = await addHierarchy(p, tenantId, { name: 'Venue B', buildings: 2, floors: 2, zones: 2 });
  await addHierarchy(p, tenantId, { name: 'Venue C', buildings: 1, floors: 1, zones: 1 });
  tokens.pinned = (await addUser(p, tenantId, 'venue', { locationId: a.location_id })).token;
  for (const [i, locationId] of [a.location_id, other, a.location_id].entries()) {
    const g = await addGuest(p, tenantId, locationId, { createdAt: new Date(Date.UTC(2026, 0, 1 + i)) });
    idOf.Guest ??= g.id;
    const tag = await p.tag.create({ data: { tenantId, name: `tag ${i}` } });
    await p.guestTag.create({ data: { tenantId, guestId: g.id, tagId: tag.id } });
    for (let d = 0; d < 2; d++) {
      const device = await addDevice(p, tenantId, g.id);
      idOf.GuestDevice ??= device.id;
      for (let s = 0; s < 3; s++) {
        // Sessions at the other location too: the pinned user must not see their guest.
        const session = await addSession(
          p,
          tenantId,
          { guestId: g.id, deviceId: device.id, locationId: s === 2 ? other : locationId },
          // Every one ended: an open session's duration runs on between the two requests.
          {
            startTime: new Date(Date.UTC(2026, 1, 1 + s, i, d)),
            endTime: new Date(Date.UTC(2026, 1, 1 + s, 9, d)),
          },
        );
        idOf.GuestSession ??= session.id;
      }
    }
    const code = await p.accessCode.create({
      data: {
        tenantId,
        locationId,
        serviceProfileId: a.service_profile_id,
        code: `cq-${tenantId}-${i}`,
        type: 1,
        guestId: g.id,
      },
    });
    idOf.AccessCode ??= code.id;
  }
  idOf.Location = a.location_id;
  idOf.GuestExport = idOf.Guest as string;
  idOf.ServiceProfile = a.service_profile_id;
  // Another tenant's rows, which no answer may show.
  const b = await newTenant(p);
  const foreign = await addGuest(p, b.tenant_id, b.location_id);
  await addDevice(p, b.tenant_id, foreign.id);
});

afterAll(async () => {
  await plain.close();
  await compiled.close();
});

const MAX_DEPTH = 3;
/** The types whose fixture id a root field's `id` argument gets. */
const FIXTURE_TYPES = [
  'Guest',
  'GuestDevice',
  'GuestSession',
  'AccessCode',
  'Location',
  'ServiceProfile',
  // `guestExport(id)`: the copy of the fixture guest.
  'GuestExport',
];
const withIds = (document: string) => document.replace(/<(\w+)>/g, (_m, type: string) => idOf[type] ?? type);
/** Root fields left out, each for a required argument other than an id. */
// An IP address; a location session (no fixture); a webhook's attempts (test/webhooks*.test.ts).
const SKIPPED = ['sessionsByIp', 'locationSession', 'webhookDeliveries'];

/** Arguments for a field: a small page for connections, the fixture's id where one is required. */
function argsOf(field: GraphQLField<unknown, unknown>): string | null {
  const parts: string[] = [];
  for (const arg of field.args) {
    if (arg.name === 'first') parts.push('first: 2');
    else if (isNonNullType(arg.type) && arg.defaultValue === undefined) {
      // The fixture's id is filled in when the test runs (the documents are listed before).
      const type = getNamedType(field.type).name;
      if (arg.name !== 'id' || !FIXTURE_TYPES.includes(type)) return null;
      parts.push(`id: "<${type}>"`);
    }
  }
  return parts.length ? `(${parts.join(', ')})` : '';
}

/** Every field of `type`; object fields down to MAX_DEPTH relations (connections count once). */
function selection(type: GraphQLObjectType, depth: number): string {
  const fields: string[] = [];
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      if (field.args.some((a) => isNonNullType(a.type))) continue;
      fields.push(field.name);
      continue;
    }
    if (!isObjectType(named)) continue;
    const connection = named.name.endsWith('Connection') || named.name.endsWith('Edge');
    const next = connection || named.name === 'PageInfo' ? depth : depth + 1;
    if (next > MAX_DEPTH) continue;
    const args = argsOf(field);
    if (args === null) continue;
    fields.push(`${field.name}${args} { __typename ${selection(named, next)} }`);
  }
  return fields.join(' ');
}

const query = schema.getQueryType() as GraphQLObjectType;
const documents = Object.values(query.getFields()).flatMap((field) => {
  const named = getNamedType(field.type);
  const args = argsOf(field);
  if (args === null) return [];
  const sel = isObjectType(named) ? ` { ${selection(named, 1)} }` : '';
  return [{ root: field.name, document: `{ ${field.name}${args}${sel} }` }];
});

describe('compiled queries', () => {
  it('cover every root query field but those with required arguments other than an id', () => {
    const skipped = Object.keys(query.getFields()).filter((n) => !documents.some((d) => d.root === n));
    // Each needs arguments of its own (a location, a date range…); the service tests cover them.
    expect(skipped).toEqual(SKIPPED);
    expect(documents.length).toBeGreaterThanOrEqual(10);
  });

  it.each(documents)('compile: $root', ({ document }) => {
    expect(isCompiledQuery(compileQuery(rowReadingSchema(schema), parse(document)))).toBe(true);
  });

  it.each(documents)(
    'answer as graphql-js does, byte for byte, for each role: $root',
    async ({ document }) => {
      for (const [role, token] of Object.entries(tokens)) {
        const fast = await compiled.graphql(token, document);
        const slow = await plain.graphql(token, document);
        expect(fast.text, `${role}: ${document}`).toBe(slow.text);
        expect(fast.status).toBe(slow.status);
        // A real answer, not an error both paths give alike.
        if (role === 'admin') expect(fast.json.errors, document).toBeUndefined();
      }
    },
  );

  // Documents the generated ones do not write: directives on variables below the root, one relation
  // asked twice under aliases with different pages, fragments with directives.
  const guest = () => idOf.Guest as string;
  const handWritten: [string, () => string, Record<string, unknown>][] = [
    [
      '@include with a variable below the root',
      () => 'query($i: Boolean!) { viewer { id email @include(if: $i) } }',
      { i: true },
    ],
    [
      '@include false with a variable',
      () => 'query($i: Boolean!) { viewer { id email @include(if: $i) } }',
      { i: false },
    ],
    [
      '@skip with a variable in a list',
      () => 'query($s: Boolean!) { guests(first: 2) { edges { node { id email @skip(if: $s) } } } }',
      { s: false },
    ],
    [
      'a default value',
      () => 'query($i: Boolean = true) { guests(first: 2) { totalCount @include(if: $i) } }',
      {},
    ],
    [
      'a fragment spread under a directive',
      () =>
        'query($i: Boolean!) { guests(first: 2) { edges { node { id ...F @include(if: $i) } } } } fragment F on Guest { email }',
      { i: true },
    ],
    [
      'one relation under aliases with different pages',
      () =>
        `{ guest(id: "${guest()}") { all: sessions(first: 100) { edges { node { id } } } newest: sessions(first: 1) { edges { node { id } } } oldest: sessions(last: 1) { edges { node { id } } } } }`,
      {},
    ],
    [
      'aliased pages of a relation in a list',
      () =>
        '{ guests(first: 2) { edges { node { a: devices(first: 1) { edges { node { id } } } b: devices(last: 1) { edges { node { id } } } c: devices(first: 3) { totalCount edges { node { id } } } d: sessions(first: 1) { edges { node { id } } } e: sessions(last: 1) { edges { node { id } } } } } } }',
      {},
    ],
  ];
  it.each(handWritten)('answer as graphql-js does: %s', async (_name, document, variables) => {
    for (const [role, token] of Object.entries(tokens)) {
      const fast = await compiled.graphql(token, document(), variables);
      const slow = await plain.graphql(token, document(), variables);
      expect(fast.text, `${role}: ${document()}`).toBe(slow.text);
      if (role === 'admin') expect(slow.json.errors, slow.text).toBeUndefined();
    }
  });

  it('reads the nested levels in the statements of their root, never per row', async () => {
    const doc = withIds(documents.find((d) => d.root === 'guests')?.document as string);
    const fast = await recordStatements(compiled.db, () => compiled.graphql(tokens.admin as string, doc));
    const slow = await recordStatements(compiled.db, () => plain.graphql(tokens.admin as string, doc));
    expect(fast.result.text).toBe(slow.result.text);
    expect(fast.sql.length).toBeLessThanOrEqual(slow.sql.length);
  });

  it('answer on graphql-js when a resolver returns a row without a column the document reads', async () => {
    // Query.guest as a plain resolver that reads two columns (no plugin-prisma plan for its path):
    // graphql-js's plugin-prisma wrapper loads what the document asks beyond them; the compiled
    // path, which reads columns by property, finds `name` missing and hands the operation over.
    const narrowed = mapSchema(schema, {
      [MapperKind.ROOT_FIELD]: (field, name) =>
        name !== 'guest'
          ? field
          : {
              ...field,
              resolve: (_root: unknown, args: { id?: string }, ctx: { prisma: typeof compiled.db.prisma }) =>
                ctx.prisma.guest.findFirst({ where: { id: args.id }, select: { id: true, tenantId: true } }),
            },
    });
    const principal = await authenticate(compiled.db.prisma, tokens.admin as string);
    const context = { prisma: compiled.db.prisma, config: loadConfig({}), principal, requestId: 'test' };
    const ask = async (plugins: ReturnType<typeof compiledQueries>[]) => {
      const yoga = createYoga({ schema: narrowed, plugins, context, logging: false });
      const res = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ guest(id: "${idOf.Guest}") { id name email } }` }),
      });
      return res.json();
    };
    const expected = await ask([]);
    expect(expected.errors).toBeUndefined();
    expect(expected.data.guest.name).toEqual(expect.any(String));
    const plugin = compiledQueries(narrowed);
    // Twice: the first meets the missing column, the second goes to graphql-js at once.
    expect(await ask([plugin])).toEqual(expected);
    expect(await ask([plugin])).toEqual(expected);
  });

  it('mask a scalar refusing a value as graphql-js does: Unexpected error., INTERNAL_SERVER_ERROR (probe R)', async () => {
    // A session open since 1900: its duration in seconds is past a 32-bit Int.
    const a = await newTenant(compiled.db.prisma);
    const g = await addGuest(compiled.db.prisma, a.tenant_id, a.location_id);
    const d = await addDevice(compiled.db.prisma, a.tenant_id, g.id);
    await addSession(
      compiled.db.prisma,
      a.tenant_id,
      { guestId: g.id, deviceId: d.id, locationId: a.location_id },
      { startTime: new Date('1900-01-01T00:00:00Z'), endTime: null },
    );
    const query = '{ guestSessions(first: 1) { edges { node { id durationSeconds } } } }';
    const fast = await compiled.graphql(a.token, query);
    const slow = await plain.graphql(a.token, query);
    expect(slow.json.errors[0]).toMatchObject({
      message: 'Unexpected error.',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(fast.text).toBe(slow.text);
  });
});
