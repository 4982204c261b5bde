// GraphiQL's page: graphql-yoga's renderer inlines the whole GraphiQL bundle (about 9 MB of HTML).
// Rendered per request, uncompressed and never cached, that made every load 9 MB anyone could ask
// for (probe K). It is rendered once per endpoint and served compressed with an ETag
// (src/http/precompressed.ts): a browser revalidates for a 304, and a load costs about 2 MB. The
// renderer is loaded at the first request too: importing it costs about 180 ms of CPU, at every start.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Precompressed, precompressedOnce, sendPrecompressed } from '../http/precompressed.js';

const GRAPHIQL_OPTIONS = {
  title: 'Venue Wi-Fi Gateway — GraphiQL',
  headers: '{\n  "Authorization": "Bearer <token>"\n}',
};

/** By endpoint: `/graphql`, or under APP_URL's path behind a proxy that serves the service under one. */
const pages = new Map<string, () => Promise<Precompressed>>();

function graphiqlPage(endpoint: string): Promise<Precompressed> {
  let page = pages.get(endpoint);
  if (!page) {
    page = precompressedOnce(async () => {
      const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
      return Buffer.from(renderGraphiQL({ ...GRAPHIQL_OPTIONS, endpoint }));
    });
    pages.set(endpoint, page);
  }
  return page();
}

/** Answers GraphiQL's page in brotli, gzip or as is: 304 when the client holds that one (If-None-Match). */
export function sendGraphiql(
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint = '/graphql',
): Promise<FastifyReply> {
  return sendPrecompressed(request, reply, graphiqlPage(endpoint), {
    contentType: 'text/html; charset=utf-8',
    cacheControl: 'no-cache',
  });
}
