// The public documentation routes: the OpenAPI document and an interactive reference (Swagger UI,
// served from the swagger-ui-dist package: no CDN, no external host) that links to GraphiQL.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
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
  const document = JSON.stringify(buildOpenApi(routes, undefined, base));
  const page = docsPage(base);
  const dir = assetDir();
  const assets = new Map<string, Buffer>();

  app.get(OPENAPI_PATH, async (_req, reply) =>
    reply.header('Content-Type', 'application/json; charset=utf-8').send(document),
  );
  app.get(DOCS_PATH, async (_req, reply) =>
    reply.header('Content-Type', 'text/html; charset=utf-8').send(page),
  );
  app.get<{ Params: { file: string } }>(`${DOCS_PATH}/:file`, async (req, reply) => {
    const type = ASSETS[req.params.file];
    if (!type)
      return reply.status(404).header('Content-Type', 'application/json').send({ message: 'Not Found.' });
    let body = assets.get(req.params.file);
    if (!body) {
      body = readFileSync(join(dir, req.params.file));
      assets.set(req.params.file, body);
    }
    return reply.header('Content-Type', type).header('Cache-Control', 'public, max-age=86400').send(body);
  });
}
