// Laravel's simple pagination: the list envelope of spec 1.1 with the pagination decisions.
import type { AppContext } from '../context.js';
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

function buildQuery(params: [string, string][]): string {
  return params.map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).join('&');
}

export interface EnvelopeSource {
  /** Absolute URL of the endpoint without a query. */
  path: string;
  /** The request's query parameters in their original order (strings only; arrays flattened). */
  query: [string, string][];
}

/** Every other query parameter is kept in the links, so following `next` reads the same set. */
function pageUrl(src: EnvelopeSource, page: number): string {
  const params: [string, string][] = [];
  let placed = false;
  for (const [k, v] of src.query) {
    if (k === 'page') {
      if (!placed) params.push(['page', String(page)]);
      placed = true;
    } else {
      params.push([k, v]);
    }
  }
  if (!placed) params.push(['page', String(page)]);
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
