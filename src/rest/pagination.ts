// Laravel's simple pagination: the list envelope of spec 1.1 with the pagination decisions.
import type { AppContext } from '../context.js';
import { laravelInput } from '../validation/laravel-input.js';
import { isPhpArray } from '../validation/php-values.js';
import { integer, max, min, nullable, type Rules } from '../validation/validator.js';

export interface PageRequest {
  page: number;
  perPage: number;
  /** Rows to fetch: one more than a page tells whether a next page exists. */
  skip: number;
  take: number;
}

/**
 * `defaultPerPage` only documents the default (the OpenAPI `default`); it changes no rule. Both are
 * `nullable`, as a Laravel index request declares them: an empty `page=` or `per_page=` is the default.
 */
export function pageRules(defaultPerPage = 10): Rules {
  return {
    page: [nullable(), { ...integer(), doc: { default: 1 } }, min(1)],
    per_page: [nullable(), { ...integer(), doc: { default: defaultPerPage } }, min(1), max(100)],
  };
}

export function pageRequest(query: { page?: unknown; per_page?: unknown }, defaultPerPage = 10): PageRequest {
  const page = typeof query.page === 'number' ? query.page : 1;
  const perPage = typeof query.per_page === 'number' ? query.per_page : defaultPerPage;
  return { page, perPage, skip: (page - 1) * perPage, take: perPage + 1 };
}

// PHP's http_build_query with RFC 3986 encoding, as Laravel's Arr::query writes links.
function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `http_build_query($params, '', '&', PHP_QUERY_RFC3986)`: a list or map is written `key[index]=…`
 * (at any depth, its brackets encoded), a null is left out, a boolean is `1` or `0`.
 */
function buildQuery(params: readonly (readonly [string, unknown])[]): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (isPhpArray(value)) {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else if (typeof value === 'boolean') pairs.push(`${rfc3986(key)}=${value ? 1 : 0}`);
    else pairs.push(`${rfc3986(key)}=${rfc3986(String(value))}`);
  };
  for (const [k, v] of params) add(k, v);
  return pairs.join('&');
}

export interface EnvelopeSource {
  /** Absolute URL of the endpoint without a query. */
  path: string;
  /** The request's query as PHP's parse_str reads it (src/http/query-string.ts), before Laravel's input middleware. */
  query: Readonly<Record<string, unknown>>;
}

/**
 * The request's query with the page changed, as Laravel's `withQueryString()` paginator writes it:
 * `array_merge($query, ['page' => $page])` of the query its input middleware left (values trimmed,
 * empty ones null and so left out), the page where the request put it or else last.
 */
function pageUrl(src: EnvelopeSource, page: number): string {
  const params = Object.entries(laravelInput(src.query));
  const at = params.findIndex(([k]) => k === 'page');
  if (at < 0) params.push(['page', page]);
  else params[at] = ['page', page];
  return `${src.path}?${buildQuery(params)}`;
}

export function listEnvelope<T>(src: EnvelopeSource, req: PageRequest, rows: T[]): Record<string, unknown> {
  const hasMore = rows.length > req.perPage;
  const data = hasMore ? rows.slice(0, req.perPage) : rows;
  const from = data.length > 0 ? req.skip + 1 : null;
  return {
    data,
    links: {
      first: pageUrl(src, 1),
      last: null,
      prev: req.page > 1 ? pageUrl(src, req.page - 1) : null,
      next: hasMore ? pageUrl(src, req.page + 1) : null,
    },
    meta: {
      current_page: req.page,
      from,
      to: from === null ? null : req.skip + data.length,
      path: src.path,
      per_page: req.perPage,
    },
  };
}

export type ListContext = AppContext & { envelope: EnvelopeSource };
