// The permission table (src/auth/permissions.ts, README "Permissions"), table-driven: every REST
// route of the route table and every GraphQL root field declares its action, and each is called with
// each role (tenant, venue, front-desk, support) in a tenant of its own: a role the table refuses
// gets 403 (GraphQL FORBIDDEN), every other role gets past authorization. Routes and fields added
// later are walked without editing this file.
import { readFileSync } from 'node:fs';
import {
  type GraphQLInputType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlRootFields, README, readmeWithPermissions } from '../scripts/print-permissions.js';
import { actions, permissionTable, reachOf } from '../src/auth/permissions.js';
import { type Role, roles } from '../src/auth/principal.js';
import { routeTable } from '../src/rest/route-table.js';
import { startApp, type TestApp } from './helpers/app.js';
import { addUser, newTenant } from './helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const FORBIDDEN = '{"message":"This action is unauthorized."}';
const isAction = (a: unknown): a is keyof typeof permissionTable =>
  typeof a === 'string' && Object.hasOwn(permissionTable, a);

/** A token of `role` in a fresh tenant (venue and front-desk pinned to its default location). */
async function freshCaller(role: Role): Promise<string> {
  const a = await newTenant(t.db.prisma);
  if (role === 'tenant') return a.token;
  const pinned = role === 'venue' || role === 'front-desk';
  return (await addUser(t.db.prisma, a.tenant_id, role, pinned ? { locationId: a.location_id } : {})).token;
}

const readers = new Map<Role, Promise<string>>();
/** Reads share one caller per role; every write gets a tenant of its own, so no write disturbs another test. */
function caller(role: Role, write: boolean): Promise<string> {
  if (write) return freshCaller(role);
  let token = readers.get(role);
  if (!token) {
    token = freshCaller(role);
    readers.set(role, token);
  }
  return token;
}

// -------------------------------------------------------------------------------------------------
describe('declarations', () => {
  it('every REST route declares an action of the permission table', () => {
    const missing = routeTable
      .filter((r) => !isAction(r.endpoint.action))
      .map((r) => `${r.method} ${r.path}`);
    expect(missing, `routes without \`action\` in their Endpoint: ${missing.join(', ')}`).toEqual([]);
  });

  it('every GraphQL root field declares an action of the permission table', () => {
    const missing = graphqlRootFields()
      .filter((f) => !isAction(f.action))
      .map((f) => f.name);
    expect(missing, `root fields without \`...requires(action)\`: ${missing.join(', ')}`).toEqual([]);
  });

  it('every action is served by some route or root field', () => {
    const used = new Set<unknown>([
      ...routeTable.map((r) => r.endpoint.action),
      ...graphqlRootFields().map((f) => f.action),
    ]);
    const unused = actions.filter((a) => !used.has(a));
    expect(unused, `actions no route or field declares: ${unused.join(', ')}`).toEqual([]);
  });

  it('README.md carries the table the code enforces', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme, 'README.md is out of date: run `npx tsx scripts/print-permissions.ts`').toBe(
      readmeWithPermissions(readme),
    );
  });
});

// -------------------------------------------------------------------------------------------------
/** `/guests/:id` → `/api/v1/guests/missing-id`: authorization comes before any look-up. */
const concretePath = (path: string) => `/api/v1${path.replace(/:[^/]+/g, 'missing-id')}`;

describe.each(routeTable.map((r) => [`${r.method} ${r.path}`, r] as const))('REST %s', (_n, r) => {
  it.each(roles.map((role) => [role]))('as %s', async (role) => {
    const action = r.endpoint.action;
    if (!isAction(action)) throw new Error('no action declared (see the declarations test)');
    const token = await caller(role, r.method !== 'GET');
    const res = await t.request(r.method, concretePath(r.path), {
      token,
      ...(r.method === 'GET' ? {} : { body: {} }),
    });
    if (reachOf(action, role) === false) {
      expect(res.status, res.text).toBe(403);
      expect(res.text).toBe(FORBIDDEN);
    } else {
      // Past authorization: the missing id, the empty body or success, never 403 (nor 401 or 500).
      expect([401, 403, 500], `${res.status} ${res.text}`).not.toContain(res.status);
    }
  });
});

// -------------------------------------------------------------------------------------------------
/** A literal for a required argument: ids that exist nowhere, empty lists, required input fields only. */
function literal(type: GraphQLInputType): string {
  if (isNonNullType(type)) return literal(type.ofType);
  if (isListType(type)) return '[]';
  if (isEnumType(type)) return type.getValues()[0]?.name ?? 'null';
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter(
      (f) => isNonNullType(f.type) && f.defaultValue === undefined,
    );
    return `{ ${fields.map((f) => `${f.name}: ${literal(f.type)}`).join(', ')} }`;
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return '1';
      case 'Float':
        return '1.0';
      case 'Boolean':
        return 'false';
      case 'DateTime':
        return '"2026-01-01T00:00:00Z"';
      default:
        return '"missing-id"';
    }
  }
  return 'null';
}

/** Enough selection to make the resolver run (a connection's `resolve` runs only for `edges`). */
function selection(type: GraphQLOutputType): string {
  const named = getNamedType(type);
  if (!isObjectType(named)) return '';
  return 'edges' in named.getFields() ? '{ edges { __typename } }' : '{ __typename }';
}

const operations = graphqlRootFields()
  .filter((f) => !f.name.startsWith('Subscription.'))
  .map((f) => {
    const [kind, name] = f.name.split('.') as [string, string];
    const args = f.field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
    const argText = args.length ? `(${args.map((a) => `${a.name}: ${literal(a.type)}`).join(', ')})` : '';
    const op = `${kind === 'Mutation' ? 'mutation' : 'query'} { ${name}${argText} ${selection(f.field.type)} }`;
    return [f.name, f.action, op] as const;
  });

describe.each(operations)('GraphQL %s', (name, action, op) => {
  it.each(roles.map((role) => [role]))('as %s', async (role) => {
    if (!isAction(action)) throw new Error('no action declared (see the declarations test)');
    const token = await caller(role, name.startsWith('Mutation.'));
    const res = await t.graphql(token, op);
    const codes = ((res.json?.errors ?? []) as { extensions?: { code?: string } }[]).map(
      (e) => e.extensions?.code,
    );
    if (reachOf(action, role) === false) {
      expect(codes, res.text).toEqual(['FORBIDDEN']);
    } else {
      expect(res.status, res.text).toBe(200);
      for (const code of ['FORBIDDEN', 'UNAUTHENTICATED', 'INTERNAL_SERVER_ERROR']) {
        expect(codes, `${op}: ${res.text}`).not.toContain(code);
      }
      // A parse or validation error would mean the operation never reached the resolver.
      expect(codes, `${op}: ${res.text}`).not.toContain('GRAPHQL_VALIDATION_FAILED');
    }
  });
});
