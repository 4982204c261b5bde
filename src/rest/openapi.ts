// The OpenAPI 3.1 document of /api/v1, built from the route table and the objects the code runs:
// parameters and bodies from the validator rules the services pass to `validate()` (bounds, choices
// and formats from each rule's `doc`), responses from the schemas declared next to the serializers and
// the shared envelopes (src/rest/schemas.ts), examples recorded from a real run
// (scripts/openapi-examples.ts writes src/rest/openapi-examples.json). Nothing here is written twice.
import { readFileSync } from 'node:fs';
import type { TSchema } from '@sinclair/typebox';
import { AppError, type ErrorCode, errorCodes } from '../errors.js';
import { restErrorBody } from '../http/error-bodies.js';
import type { Rule, Rules } from '../validation/validator.js';
import { API_PREFIX } from './adapter.js';
import type { Endpoint, Route } from './endpoint.js';
import { MessageBody, NotFoundBody, ValidationBody } from './schemas.js';

type Json = Record<string, unknown>;

/** Recorded bodies: `"GET /locations"` → status → body; `"*"` holds the answers every route shares. */
export type OpenApiExamples = Record<string, Record<string, unknown>>;

export const EXAMPLES_FILE = new URL('./openapi-examples.json', import.meta.url);

export function loadExamples(): OpenApiExamples {
  try {
    return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as OpenApiExamples;
  } catch {
    return {};
  }
}

/** `/locations/:id` → `/locations/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] ?? '');

/** `GET /locations/:id/activate` → `getLocationsIdActivate`. */
function operationId(r: Route): string {
  const words = r.path
    .split(/[/:_-]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return r.method.toLowerCase() + words.join('');
}

// ---------------------------------------------------------------------------------------------
// Rules → JSON Schema

const TYPE_OF: Record<string, string> = {
  string: 'string',
  integer: 'integer',
  numeric: 'number',
  boolean: 'boolean',
  array: 'array',
  date: 'string',
};

/** One field's schema from its rule list: type, bounds by type, choices, format, nullability, default. */
export function ruleSchema(list: readonly Rule[], where: 'query' | 'body', declared?: string): Json {
  const valueType = list.find((r) => r.type !== undefined)?.type;
  const schema: Json = {};
  const base = valueType ? TYPE_OF[valueType] : undefined;
  // What the operation's declaration says of the field (its GraphQL description), first.
  const descriptions: string[] = declared ? [declared.endsWith('.') ? declared : `${declared}.`] : [];
  for (const rule of list) {
    const doc = rule.doc;
    if (!doc) continue;
    if (doc.min !== undefined || doc.max !== undefined) {
      const [lo, hi] =
        base === 'string'
          ? ['minLength', 'maxLength']
          : base === 'array'
            ? ['minItems', 'maxItems']
            : ['minimum', 'maximum'];
      if (doc.min !== undefined) schema[lo] = doc.min;
      if (doc.max !== undefined) schema[hi] = doc.max;
    }
    if (doc.enum) {
      const values =
        base === 'integer' || base === 'number' ? doc.enum.map(Number) : doc.enum.map((v) => String(v));
      if (base === 'array') schema.items = { enum: values };
      else schema.enum = values;
    }
    if (doc.format) schema.format = doc.format;
    if (doc.uniqueItems) schema.uniqueItems = true;
    if (doc.pattern) schema.pattern = doc.pattern;
    if (doc.default !== undefined) schema.default = doc.default;
    if (doc.description && !descriptions.includes(doc.description)) descriptions.push(doc.description);
  }
  if (base === 'boolean')
    descriptions.push(where === 'query' ? '`true`/`false` (also `1`/`0`).' : 'Also `1`/`0`.');
  if (base === 'integer' && where === 'body') descriptions.push('An integer or a string of digits.');
  // Laravel's `required` refuses an empty array.
  if (base === 'array' && where === 'body' && isRequired(list) && schema.minItems === undefined)
    schema.minItems = 1;
  const nullable = list.some((r) => r.nullable);
  // Laravel reads an empty query value as null, which a nullable filter lets through.
  if (nullable && where === 'query') descriptions.push('Empty: as if not sent.');
  if (base) schema.type = nullable && where === 'body' ? [base, 'null'] : base;
  // A query value is text whatever rule reads it.
  else if (where === 'query') schema.type = 'string';
  if (schema.enum && nullable && where === 'body') (schema.enum as unknown[]).push(null);
  if (descriptions.length > 0) schema.description = descriptions.join(' ');
  return schema;
}

const isRequired = (list: readonly Rule[]): boolean => list.some((r) => r.name === 'required');

function bodySchema(
  rules: Rules,
  items: Record<string, Rules> = {},
  declared: Readonly<Record<string, string>> = {},
): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const [field, list] of Object.entries(rules)) {
    const schema = ruleSchema(list, 'body', declared[field]);
    const itemRules = items[field];
    if (itemRules) schema.items = bodySchema(itemRules);
    properties[field] = schema;
    if (isRequired(list)) required.push(field);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    description: 'Fields without rules are ignored.',
  };
}

/** The same body as a form: file fields as file parts, list fields as repeated `name[]` parts. */
function formSchema(
  rules: Rules,
  fileFields: readonly string[],
  declared: Readonly<Record<string, string>> = {},
): Json {
  const schema = bodySchema(rules, {}, declared);
  const properties = schema.properties as Json;
  for (const field of fileFields) {
    properties[field] = {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: `A file part; judged by the same rule as the JSON form's ${field}.`,
    };
  }
  schema.description = 'Form fields as in the JSON body; a list field is sent as repeated `name[]` parts.';
  return schema;
}

/**
 * An upload's bodies (the guest import): JSON as the list alone (an array) or the object with its
 * options, and a multipart form with a file part; each with its examples.
 */
function uploadContent(e: Endpoint, rules: Rules): Json {
  const upload = e.upload;
  if (!upload) return {};
  const object = bodySchema(rules, e.bodyItems, e.descriptions);
  const list = (object.properties as Json)[upload.listField] as Json;
  const form = bodySchema(upload.form.fields, {}, e.descriptions);
  form.properties = {
    file: { type: 'string', contentMediaType: 'application/octet-stream', description: upload.form.file },
    ...(form.properties as Json),
  };
  form.required = ['file'];
  form.description = 'The file part, and the options as form fields (or in the query).';
  const examples = (type: string) => (upload.examples?.[type] ? { examples: upload.examples[type] } : {});
  return {
    'application/json': {
      schema: {
        oneOf: [
          { ...list, description: `The ${upload.listField} alone; options in the query.` },
          { ...object, description: 'The options beside the list (they win over the query).' },
        ],
      },
      ...examples('application/json'),
    },
    'multipart/form-data': { schema: form, ...examples('multipart/form-data') },
  };
}

// ---------------------------------------------------------------------------------------------
// Response schemas → components

class SchemaRegistry {
  readonly schemas: Record<string, Json> = {};
  private readonly texts = new Map<string, string>();

  /** A JSON copy of `schema` with every titled sub-schema moved to components and referenced. */
  ref(schema: TSchema): Json {
    return this.hoist(JSON.parse(JSON.stringify(schema)) as Json);
  }

  private hoist(node: Json): Json {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (Array.isArray(v)) out[k] = v.map((x) => (isObject(x) ? this.hoist(x) : x));
      else if (isObject(v) && k !== 'const' && k !== 'default' && k !== 'examples')
        out[k] = this.hoistMap(k, v);
      else out[k] = v;
    }
    const title = typeof out.title === 'string' ? out.title : null;
    if (!title) return out;
    const text = JSON.stringify(out);
    const known = this.texts.get(title);
    if (known !== undefined && known !== text) throw new Error(`two different schemas are titled ${title}`);
    this.texts.set(title, text);
    this.schemas[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  }

  private hoistMap(key: string, v: Json): Json {
    // `properties` and `patternProperties` map names to schemas; anything else is a schema.
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      return Object.fromEntries(
        Object.entries(v).map(([name, s]) => [name, isObject(s) ? this.hoist(s) : s]),
      );
    }
    return this.hoist(v);
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// The document

const ERROR_RESPONSES: Record<number, { name: string; description: string; schema: TSchema }> = {
  400: { name: 'MalformedJson', description: 'The body is not valid JSON.', schema: MessageBody },
  401: {
    name: 'Unauthenticated',
    description:
      'Missing, unknown, revoked or expired token; user Passive or Banned; tenant trashed (support users excepted).',
    schema: MessageBody,
  },
  403: {
    name: 'Forbidden',
    description: "The caller's role (or a scoped token) may not perform this action.",
    schema: MessageBody,
  },
  404: {
    name: 'RecordNotFound',
    description: "No such record in the caller's reach (another tenant's id answers the same).",
    schema: NotFoundBody,
  },
  410: {
    name: 'Gone',
    description: 'Removed at its sunset; the message names the replacement.',
    schema: MessageBody,
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is over the limit (1 MiB; 3 MiB where a guest avatar may be sent).',
    schema: MessageBody,
  },
  422: {
    name: 'ValidationFailed',
    description:
      "Laravel's validation answer: the first message (and how many more), every field's messages.",
    schema: ValidationBody,
  },
  429: {
    name: 'TooManyRequests',
    description: "The token's (or, unauthenticated, the address's) budget per minute is spent.",
    schema: MessageBody,
  },
  500: {
    name: 'ServerError',
    description: 'An unexpected failure; the request id is in `X-Request-Id` and the log.',
    schema: MessageBody,
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      "The database is unreachable or timed out, or the tenant's other requests hold its share of it; retry after `Retry-After` seconds.",
    schema: MessageBody,
  },
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No Content' };

const COMMON_HEADERS = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
};

/** The statuses a route answers besides its success, in order. */
export function errorStatuses(r: Route): number[] {
  const e = r.endpoint;
  // Fastify reads a DELETE's body too: a malformed or oversized one answers 400/413 there as well.
  const hasBody = r.method !== 'GET';
  const validates =
    e.query !== undefined || e.filters !== undefined || e.body !== undefined || 422 in (e.responses ?? {});
  const statuses = [
    ...(hasBody ? [400] : []),
    401,
    ...(e.action ? [403] : []),
    ...(pathParams(r.path).length > 0 ? [404] : []),
    ...(e.deprecated ? [410] : []),
    ...(hasBody ? [413] : []),
    ...(validates ? [422] : []),
    429,
    500,
    // Every API request reads the database (its token first).
    503,
  ];
  for (const s of Object.keys(e.responses ?? {}).map(Number)) if (!statuses.includes(s)) statuses.push(s);
  return statuses.sort((a, b) => a - b);
}

const routeKey = (r: Route): string => `${r.method} ${r.path}`;

/** The body rules of an endpoint, as its service runs them. */
export function bodyRules(e: Endpoint): Rules | undefined {
  return typeof e.body === 'function' ? e.body() : e.body;
}

/** `base`: APP_URL's path, under which the servers' URL and GraphiQL's link are written ('' at the root). */
export function buildOpenApi(
  routes: readonly Route[],
  examples: OpenApiExamples = loadExamples(),
  base = '',
): Json {
  const registry = new SchemaRegistry();
  const shared = examples['*'] ?? {};
  const paths: Record<string, Json> = {};
  const used = new Set<string>();
  const sharedResponses: Record<string, Json> = {};
  for (const [status, def] of Object.entries(ERROR_RESPONSES)) {
    const example = shared[status] ?? restErrorBody(sampleError(Number(status)));
    sharedResponses[def.name] = {
      description: def.description,
      headers:
        Number(status) === 429
          ? { ...COMMON_HEADERS, ...RETRY_HEADERS }
          : Number(status) === 503
            ? { ...COMMON_HEADERS, 'Retry-After': RETRY_HEADERS['Retry-After'] }
            : // Only a deprecated endpoint answers 410, with the headers it sent before its sunset.
              Number(status) === 410
              ? { ...COMMON_HEADERS, ...DEPRECATION_HEADERS }
              : COMMON_HEADERS,
      content: { 'application/json': { schema: registry.ref(def.schema), example } },
    };
  }

  for (const r of routes) {
    const e = r.endpoint;
    const recorded = examples[routeKey(r)] ?? {};
    const parameters: Json[] = pathParams(r.path).map((name) => ({
      name,
      in: 'path',
      required: true,
      description: e.params?.[name] ?? 'The record id.',
      schema: { type: 'string' },
    }));
    for (const [name, list] of Object.entries({ ...e.filters, ...e.query })) {
      const schema = ruleSchema(list, 'query', e.descriptions?.[name]);
      const { description, ...rest } = schema;
      // A list is read as PHP reads a query: `name[]=a&name[]=b` (a repeated `name=` keeps the last).
      const isList = rest.type === 'array';
      parameters.push({
        name: isList ? `${name}[]` : name,
        in: 'query',
        required: false,
        ...(description ? { description } : {}),
        ...(isList ? { style: 'form', explode: true } : {}),
        schema: isList ? { ...rest, items: { type: 'string', ...(rest.items as Json | undefined) } } : rest,
      });
    }

    const ok = e.status ?? (e.response || e.exportItem ? 200 : 204);
    const success: Json = e.response
      ? {
          description: STATUS_TEXT[ok] ?? 'OK',
          headers: e.deprecated ? { ...COMMON_HEADERS, ...DEPRECATION_HEADERS } : COMMON_HEADERS,
          content: {
            'application/json': {
              schema: registry.ref(e.response),
              ...(recorded[ok] !== undefined ? { example: recorded[ok] } : {}),
            },
          },
        }
      : { description: STATUS_TEXT[ok] ?? 'No Content', headers: COMMON_HEADERS };
    const opResponses: Json = { [ok]: e.exportItem ? exportResponse(registry, e.exportItem) : success };
    for (const status of errorStatuses(r)) {
      const own = e.responses?.[status];
      const def = ERROR_RESPONSES[status];
      const example = recorded[status];
      if (own || example !== undefined) {
        const schema = own?.schema ?? def?.schema ?? MessageBody;
        opResponses[status] = {
          description: own?.description ?? def?.description ?? 'Error',
          // The adapter sets Deprecation, Sunset and Link before it answers 410 (src/rest/adapter.ts).
          headers:
            e.deprecated && status === 410 ? { ...COMMON_HEADERS, ...DEPRECATION_HEADERS } : COMMON_HEADERS,
          content: {
            'application/json': {
              schema: registry.ref(schema),
              ...(example !== undefined ? { example } : {}),
            },
          },
        };
      } else if (def) {
        opResponses[status] = { $ref: `#/components/responses/${def.name}` };
        used.add(def.name);
      }
    }

    const rules = bodyRules(e);
    const content = rules
      ? e.upload
        ? uploadContent(e, rules)
        : {
            'application/json': { schema: bodySchema(rules, e.bodyItems, e.descriptions) },
            // Every body route reads an HTML form too, as Laravel does (README "REST conventions").
            'application/x-www-form-urlencoded': { schema: formSchema(rules, [], e.descriptions) },
            'multipart/form-data': { schema: formSchema(rules, e.fileFields ?? [], e.descriptions) },
          }
      : undefined;
    // `Query.guests (not streamed)`: the field in code, the note after it; `(deprecated)`: no field.
    const [field = '', ...note] = r.graphql.split(' ');
    const graphql = r.graphql.startsWith('(')
      ? `GraphQL: none ${r.graphql}.`
      : `GraphQL: \`${field}\`${note.length > 0 ? ` ${note.join(' ')}` : ''}.`;
    const operation: Json = {
      operationId: operationId(r),
      summary: e.summary,
      description: [e.description, graphql].filter(Boolean).join('\n\n'),
      tags: [tagOf(r.path)],
      ...(e.deprecated ? { deprecated: true } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(rules && content
        ? { requestBody: { required: Object.values(rules).some(isRequired), content } }
        : {}),
      responses: opResponses,
    };
    const p = openApiPath(r.path);
    paths[p] = { ...paths[p], [r.method.toLowerCase()]: operation };
  }

  // Only the shared answers some operation refers to (a linter refuses unused components).
  const responses = Object.fromEntries(Object.entries(sharedResponses).filter(([name]) => used.has(name)));
  const tags = [...new Set(routes.map((r) => tagOf(r.path)))].map((name) => ({
    name,
    description: `\`${API_PREFIX}/${name}\``,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Venue Wi-Fi Gateway REST API',
      version: '1',
      summary: 'Guest Wi-Fi: locations, guests, devices, sessions, analytics, access codes, tenants, users.',
      description:
        'REST under `/api/v1`, byte-compatible with the legacy Laravel contract (keys in order, ' +
        "Laravel's envelopes and messages). The same operations are served by GraphQL at " +
        `[\`/graphql\`](${base}/graphql) (GraphiQL in a browser); each operation names its GraphQL field.\n\n` +
        "Lists answer Laravel's simple-pagination envelope (`page` from 1, `per_page` 1–100). " +
        'Every answer carries `X-Request-Id`, `X-RateLimit-Limit` and `X-RateLimit-Remaining`.\n\n' +
        "Laravel's method override: a `POST` with `X-HTTP-Method-Override` or a `_method` field (body, " +
        'else query string) is routed as that method, e.g. `POST /guests/{id}` with `_method=PUT` in a ' +
        'multipart body to update a guest with an avatar.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: `${base}${API_PREFIX}`, description: 'This server' }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token from `POST /api-tokens` (a tenant admin issues them), or from the operator: `admin bootstrap` or `admin token issue`.',
        },
      },
      headers: HEADERS,
      responses,
      schemas: registry.schemas,
    },
  };
}

const tagOf = (path: string): string => path.split('/')[1] ?? '';

/** A streamed export's 200 (src/rest/export.ts): CSV or NDJSON of the list's items. */
function exportResponse(registry: SchemaRegistry, item: TSchema): Json {
  const ref = registry.ref(item);
  const name = typeof ref.$ref === 'string' ? ref.$ref.split('/').pop() : 'list item';
  return {
    description:
      `The whole filtered list, in the list's order, streamed (chunked). ` +
      `\`Content-Disposition: attachment; filename="<name>-<YYYY-MM-DD>.<format>"\`.`,
    headers: {
      ...COMMON_HEADERS,
      'Content-Disposition': {
        description: 'attachment; filename="<name>-<YYYY-MM-DD>.csv" (or .ndjson)',
        schema: { type: 'string' },
      },
    },
    content: {
      'text/csv': {
        schema: {
          type: 'string',
          description:
            `RFC 4180 with CRLF line ends: a header row of the ${name} keys, in order, then one record per item. ` +
            'null is an empty cell; numbers, booleans, arrays and objects are written as their JSON text; a cell ' +
            "starting with =, +, -, @, tab or CR gets a leading '. With bom=true a UTF-8 BOM comes first.",
        },
      },
      'application/x-ndjson': {
        schema: {
          type: 'string',
          description: `One ${name} per line, as the list writes it (PHP-style JSON), each line ending in LF.`,
        },
      },
    },
  };
}

/** The body the error renderer writes for a status, for statuses no recorded example covers. */
function sampleError(status: number): AppError {
  const code = (Object.keys(errorCodes) as ErrorCode[]).find((c) => errorCodes[c].status === status);
  return new AppError(
    code ?? 'INTERNAL',
    code === 'VALIDATION' ? { fields: { name: ['The name field is required.'] } } : {},
  );
}

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });

const HEADERS = {
  'X-Request-Id': {
    description:
      "The request id (the caller's `X-Request-Id` when well-formed, else a UUID); logged with the request.",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': intHeader('Requests allowed per minute for this token.'),
  'X-RateLimit-Remaining': intHeader('Requests left in the current minute.'),
  'Retry-After': intHeader(
    'Seconds to wait before trying again (the rate-limit budget renews, or the database may serve again).',
  ),
  'X-RateLimit-Reset': intHeader('Unix time when the budget renews.'),
  Deprecation: { description: 'RFC 9745: `@<unix seconds>` of the deprecation.', schema: { type: 'string' } },
  Sunset: { description: 'RFC 8594: the removal date (HTTP-date).', schema: { type: 'string' } },
  Link: { description: 'The replacement: `<…>; rel="successor-version"`.', schema: { type: 'string' } },
};

const RETRY_HEADERS = {
  'Retry-After': { $ref: '#/components/headers/Retry-After' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const DEPRECATION_HEADERS = {
  Deprecation: { $ref: '#/components/headers/Deprecation' },
  Sunset: { $ref: '#/components/headers/Sunset' },
  Link: { $ref: '#/components/headers/Link' },
};
