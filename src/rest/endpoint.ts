// What a resource declares for one REST path: its query rules (REST-only ones such as paging; the
// resource's own filters are validated by its service), how to call the service, the status.
import type { TSchema } from '@sinclair/typebox';
import type { Action } from '../auth/permissions.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { Rules } from '../validation/validator.js';
import { type EnvelopeSource, listEnvelope, pageRequest, pageRules } from './pagination.js';
import { CountBody, ListEnvelope } from './schemas.js';

export interface RestRequest {
  ctx: AppContext;
  params: Record<string, string>;
  /** Query parameters as received (strings; repeated keys as arrays). */
  query: Record<string, unknown>;
  /** The JSON body as an object ({} when absent or not an object). */
  body: Record<string, unknown>;
  /** The body as parsed: a JSON array stays an array (what `body` leaves out); a form is `body`. */
  rawBody?: unknown;
  /** Whether the body came as multipart/form-data. */
  form?: boolean;
  envelope: EnvelopeSource;
}

export interface Endpoint {
  /** One line for the route table and docs. */
  summary: string;
  /** Success status (200 by default). */
  status?: number;
  /**
   * The permission-table action the service authorizes first (`authorize(principal, action)`).
   * test/permissions.test.ts walks every route with every role and requires it on each route.
   */
  action?: Action;
  /** REST-only query rules, validated before `handle` (the service validates its own filters). */
  query?: Rules;
  /** Body size limit in bytes when it differs from the app's 1 MiB (guest avatars). */
  bodyLimit?: number;
  /**
   * A file upload (the guest import): JSON bodies and multipart file parts up to `maxBytes` (413
   * beyond), file parts handed over as their bytes (src/http/multipart.ts UploadedFile).
   */
  upload?: {
    maxBytes(config: Config): number;
    /** The list field a JSON body may also send alone, as an array (the import's `rows`). */
    listField: string;
    /** The multipart form: its file part's description and its other fields' rules. */
    form: { file: string; fields: Rules };
    /** Request examples by media type, then by name. */
    examples?: Record<string, Record<string, { summary: string; value: unknown }>>;
  };
  /**
   * Body fields that may also arrive as file parts of a multipart/form-data body (src/http/multipart.ts
   * turns each into a data URL); documents the multipart form beside the JSON one.
   */
  fileFields?: readonly string[];
  /** Returns the response body; `undefined` answers with an empty body. */
  handle(req: RestRequest): Promise<unknown>;
  /** A deprecated endpoint: served with Deprecation/Sunset/Link headers until its sunset, then 410. */
  deprecated?: Deprecation;

  // What the OpenAPI document (src/rest/openapi.ts) reads; the code runs the same objects.
  /** The success body's schema, declared next to the serializer; absent for an empty (204) answer. */
  response?: TSchema;
  /** The resource's query filters: the rules its service passes to `validate()`. */
  filters?: Rules;
  /**
   * The body rules its service passes to `validate()`; a function when the rule factory needs a
   * database and a scope (call it with `docsOnly`: building rules never touches them).
   */
  body?: Rules | (() => Rules);
  /**
   * What a list operation's declaration says of its filters (src/operations/operation.ts), shown
   * before what the rules say. (Body fields' descriptions are GraphQL's: they name its body limit.)
   */
  descriptions?: Readonly<Record<string, string>>;
  /** Rules of each element of a list field of the body (the ingest's `events`). */
  bodyItems?: Record<string, Rules>;
  /**
   * A streamed export (src/rest/export.ts) of these list items: its 200 is CSV or NDJSON, not JSON
   * (`handle` answers a StreamAnswer).
   */
  exportItem?: TSchema;
  /** Error answers beyond the generic ones (a body of its own, or a 422 without declared rules). */
  responses?: Record<number, { description: string; schema: TSchema }>;
  /** Descriptions of the path parameters. */
  params?: Record<string, string>;
  /** Longer text for the docs. */
  description?: string;
}

// Rules built only to be described (OpenAPI); defined beside the operations, which use it too.
export { docsOnly } from '../operations/operation.js';

export interface Deprecation {
  /** When it was deprecated: `Deprecation: @<unix seconds>` (RFC 9745). */
  since: Date;
  /** Its removal date: `Sunset: <HTTP-date>` (RFC 8594); from then on it answers 410. */
  sunset(config: Config): Date;
  /** Path under /api/v1 of the replacement: `Link: <…>; rel="successor-version"`. */
  successor: string;
  /** The 410 message, naming the replacement. */
  goneMessage(sunset: Date): string;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  /** Path under /api/v1, Fastify syntax (`/locations/:id`). */
  path: string;
  endpoint: Endpoint;
  /** The GraphQL field serving the same operation through the same service function. */
  graphql: string;
}

export const route = (method: Method, path: string, endpoint: Endpoint, graphql: string): Route => ({
  method,
  path,
  endpoint,
  graphql,
});

/** A list endpoint: paging validated here, filters by the service, rows shaped by the serializer. */
export function listEndpoint<Row>(def: {
  summary: string;
  action?: Action;
  /** Default `per_page` (10; advertisements 25). */
  defaultPerPage?: number;
  /** The schema of one serialized row (declared next to `serialize`). */
  item: TSchema;
  /** The filters the service validates (see `Endpoint.filters`). */
  filters?: Rules;
  list(
    ctx: AppContext,
    filters: Record<string, unknown>,
    page: { skip: number; take: number },
  ): Promise<Row[]>;
  serialize(row: Row, ctx: AppContext): unknown;
}): Endpoint {
  return {
    summary: def.summary,
    ...(def.action ? { action: def.action } : {}),
    query: pageRules(def.defaultPerPage),
    response: ListEnvelope(def.item),
    ...(def.filters ? { filters: def.filters } : {}),
    async handle({ ctx, query, envelope }) {
      const page = pageRequest(query, def.defaultPerPage);
      const rows = await def.list(ctx, query, { skip: page.skip, take: page.take });
      return listEnvelope(
        envelope,
        page,
        rows.map((r) => def.serialize(r, ctx)),
      );
    },
  };
}

/** A count endpoint: `{ "count": N }` with the list's filters. */
export function countEndpoint(def: {
  summary: string;
  action?: Action;
  /** The filters the service validates (see `Endpoint.filters`). */
  filters?: Rules;
  count(ctx: AppContext, filters: Record<string, unknown>): Promise<number>;
}): Endpoint {
  return {
    summary: def.summary,
    ...(def.action ? { action: def.action } : {}),
    response: CountBody,
    ...(def.filters ? { filters: def.filters } : {}),
    async handle({ ctx, query }) {
      return { count: await def.count(ctx, query) };
    },
  };
}
