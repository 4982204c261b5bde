// The public documentation routes: the OpenAPI document and an interactive reference (Swagger UI,
// served from the swagger-ui-dist package: no CDN, no external host) that links to GraphiQL. Each
// is made at its first request and served compressed with an ETag (src/http/precompressed.ts): the
// reference's script is 1.7 MB as it is, about 0.4 MB in brotli.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { precompressedOnce, sendPrecompressed } from '../http/precompressed.js';
import { API_PREFIX } from './adapter.js';
import type { Route } from './endpoint.js';
import { buildOpenApi } from './openapi.js';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const DOCS_PATH = `${API_PREFIX}/docs`;

/** Paths under /api/v1 that need no token (they still spend the per-address rate-limit budget). */
export const PUBLIC_API_PATHS: ReadonlySet<string> = new Set([OPENAPI_PATH, DOCS_PATH, `${DOCS_PATH}/:file`]);

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
};

function assetDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The page; `base` is APP_URL's path (`/wifi` behind a proxy serving the service under one; '' at
 * the root): its assets, the document and GraphiQL are linked under it (probe O: they were not).
 */
export function docsPage(base = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Venue Wi-Fi Gateway · REST API reference</title>
  <link rel="stylesheet" href="${base}${DOCS_PATH}/swagger-ui.css">
  <style>
    body { margin: 0; font-family: sans-serif; }
    .banner { padding: 10px 20px; background: #1b1b1b; color: #fff; }
    .banner a { color: #8fd3ff; }
  </style>
</head>
<body>
  <div class="banner">REST <code>/api/v1</code> · document: <a href="${base}${OPENAPI_PATH}">${OPENAPI_PATH}</a> ·
    the same operations in GraphQL: <a href="${base}/graphql">GraphiQL at /graphql</a></div>
  <div id="swagger-ui"></div>
  <script src="${base}${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: ${JSON.stringify(`${base}${OPENAPI_PATH}`)},
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis],
    });
  </script>
</body>
</html>
`;
}

/** APP_URL's path, without its last `/` ('' at the root): what a proxy serves the service under. */
export const basePathOf = (appUrl: string): string => new URL(appUrl).pathname.replace(/\/+$/, '');

export function mountDocs(app: FastifyInstance, routes: readonly Route[], appUrl: string): void {
  const base = basePathOf(appUrl);
  const document = precompressedOnce(() =>
    Buffer.from(JSON.stringify(buildOpenApi(routes, undefined, base))),
  );
  const page = precompressedOnce(() => Buffer.from(docsPage(base)));
  const dir = assetDir();
  const assets = new Map(
    Object.entries(ASSETS).map(([file, type]) => [
      file,
      { type, body: precompressedOnce(() => readFile(join(dir, file))) },
    ]),
  );

  // HEAD declared with GET, not Fastify's own route: that one gave a 304 `Content-Length: 0`.
  const method = ['GET', 'HEAD'];
  for (const [url, body, contentType] of [
    [OPENAPI_PATH, document, 'application/json; charset=utf-8'],
    [DOCS_PATH, page, 'text/html; charset=utf-8'],
  ] as const) {
    app.route({
      method,
      url,
      handler: (req, reply) =>
        sendPrecompressed(req, reply, body(), { contentType, cacheControl: 'no-cache' }),
    });
  }
  app.route<{ Params: { file: string } }>({
    method,
    url: `${DOCS_PATH}/:file`,
    handler: async (req, reply) => {
      // A Map, not ASSETS itself: `constructor` or `__proto__` is no asset (it answered 500).
      const asset = assets.get(req.params.file);
      if (!asset)
        return reply.status(404).header('Content-Type', 'application/json').send({ message: 'Not Found.' });
      return sendPrecompressed(req, reply, asset.body(), {
        contentType: asset.type,
        cacheControl: 'public, max-age=86400',
      });
    },
  });
}
