// The contract check: every /api/v1 response a test receives must match the OpenAPI document
// (src/rest/openapi.ts): its status must be one the operation lists, its body must validate against
// that response's schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), and its object keys must come
// in the document's order (the spec's order). Built once per worker.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_PREFIX } from '../../src/rest/adapter.js';
import type { Route } from '../../src/rest/endpoint.js';
import { buildOpenApi, openApiPath } from '../../src/rest/openapi.js';
import { routeTable } from '../../src/rest/route-table.js';

type Json = Record<string, unknown>;

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

interface Contract {
  doc: Json;
  ajv: Ajv2020;
  compiled: Map<string, ValidateFunction>;
  routes: { route: Route; re: RegExp; params: number }[];
}

let contract: Contract | undefined;

function load(): Contract {
  if (contract) return contract;
  const doc = buildOpenApi(routeTable);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const routes = routeTable.map((route) => ({
    route,
    re: new RegExp(`^${route.path.replace(/:[^/]+/g, '[^/]+')}$`),
    params: (route.path.match(/:/g) ?? []).length,
  }));
  contract = { doc, ajv, compiled: new Map(), routes };
  return contract;
}

const pointer = (parts: string[]): string =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function resolve(doc: Json, node: unknown): Json {
  let current = node as Json;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    let target: unknown = doc;
    for (const part of current.$ref.slice(2).split('/')) {
      target = (target as Json)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    current = target as Json;
  }
  return current;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first place where `data`'s keys are out of the schema's order, or null. */
function orderError(doc: Json, schemaNode: unknown, data: unknown, at: string): string | null {
  const schema = resolve(doc, schemaNode);
  if (!schema) return null;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (branches) {
    const errors = branches.map((b) => orderError(doc, b, data, at));
    return errors.some((e) => e === null) ? null : (errors.find(Boolean) ?? null);
  }
  if (Array.isArray(data) && schema.items) {
    for (const [i, item] of data.entries()) {
      const e = orderError(doc, schema.items, item, `${at}/${i}`);
      if (e) return e;
    }
    return null;
  }
  if (isObject(data) && isObject(schema.properties)) {
    const props = schema.properties;
    const got = Object.keys(data).filter((k) => k in props);
    const expected = Object.keys(props).filter((k) => k in data);
    if (got.join() !== expected.join()) {
      return `${at || '/'}: keys in the order ${got.join(', ')}; the document orders ${expected.join(', ')}`;
    }
    for (const k of got) {
      const e = orderError(doc, props[k], data[k], `${at}/${k}`);
      if (e) return e;
    }
  }
  return null;
}

/** Throws when a response of `method url` does not match the document. */
export function checkContract(method: string, url: string, status: number, text: string): void {
  const path = url.split('?')[0] ?? '';
  if (!path.startsWith(`${API_PREFIX}/`)) return;
  const rel = path.slice(API_PREFIX.length).replace(/\/$/, '');
  const c = load();
  if (rel === '/openapi.json' || rel === '/docs' || rel.startsWith('/docs/')) return;
  const upper = method.toUpperCase();
  const match = c.routes
    .filter((r) => r.route.method === upper && r.re.test(rel))
    .sort((a, b) => a.params - b.params)[0];
  const name = match ? `${upper} ${match.route.path}` : `${upper} ${rel}`;
  const fail = (why: string): never => {
    throw new Error(`OpenAPI contract: ${name} answered ${status}: ${why}\n${text.slice(0, 500)}`);
  };

  let schemaRef: string;
  if (!match) {
    // An unknown route (404) or a known path with another method (405): `{ "message": … }`.
    if (status !== 404 && status !== 405 && status !== 429) fail('no operation matches this request');
    schemaRef = 'openapi#/components/schemas/Message';
  } else {
    const opPath = ['paths', openApiPath(match.route.path), match.route.method.toLowerCase()];
    const op = resolve(c.doc, (resolve(c.doc, c.doc.paths) as Json)[opPath[1] ?? ''] as Json);
    const responses = (op[opPath[2] ?? ''] as Json).responses as Json;
    const response = resolve(c.doc, responses[String(status)]);
    if (!response) fail(`the document lists only ${Object.keys(responses).join(', ')}`);
    const content = response.content as Json | undefined;
    if (!content) {
      if (text !== '') fail('the document says the body is empty');
      return;
    }
    // A streamed export's 200 (CSV, NDJSON): its bytes are checked by test/exports.test.ts.
    if (!content['application/json'] && (content['text/csv'] || content['application/x-ndjson'])) return;
    const ref = (responses[String(status)] as Json).$ref;
    schemaRef =
      typeof ref === 'string'
        ? `openapi${ref}/content/application~1json/schema`
        : `openapi#/${pointer([...opPath, 'responses', String(status), 'content', 'application/json', 'schema'])}`;
  }

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail('the body is not JSON');
  }
  let validate = c.compiled.get(schemaRef);
  if (!validate) {
    validate = c.ajv.compile({ $ref: schemaRef });
    c.compiled.set(schemaRef, validate);
  }
  if (!validate(body)) {
    fail(
      `the body does not match ${schemaRef.slice('openapi'.length)}: ${c.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })}`,
    );
  }
  const schemaNode = resolve(c.doc, { $ref: schemaRef.slice('openapi'.length) });
  const order = orderError(c.doc, schemaNode, body, '');
  if (order) fail(order);
}
