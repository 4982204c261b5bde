import type { TestProject } from 'vitest/node';
import { buildDist } from '../scripts/build.mjs';
import { ensurePgliteTemplate } from './helpers/pglite-template.js';

// On PostgreSQL (TEST_DATABASE_URL) the schema is migrated once for the whole run; each test then
// works in a tenant of its own. On the embedded default each test file starts from a copy of one
// migrated database (test/helpers/pglite-template.ts), made here. The server and the admin CLI run
// as child processes the way `npm start` and `npm run admin` run them: from dist/, built here.
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  const [template] = await Promise.all([
    buildDist().then(ensurePgliteTemplate),
    url && import('../src/db/migrate.js').then((m) => m.migrateDatabaseUrl(url)),
  ]);
  project.provide('pgliteTemplate', template);
}
