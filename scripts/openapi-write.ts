// Writes the OpenAPI document (the one GET /api/v1/openapi.json serves) to a file, for the linter
// (`npm run lint:openapi`) and for partners who want it offline. Usage: openapi-write.ts [PATH].
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildOpenApi } from '../src/rest/openapi.js';
import { routeTable } from '../src/rest/route-table.js';

const target = resolve(process.argv[2] ?? 'node_modules/.cache/openapi/openapi.json');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApi(routeTable), null, 2)}\n`);
console.error(`wrote ${target}`);
