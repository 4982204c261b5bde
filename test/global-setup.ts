import type { TestProject } from 'vitest/node';
import { ensurePgliteTemplate } from './helpers/pglite-template.js';

// On PostgreSQL (TEST_DATABASE_URL) the schema is migrated once for the whole run; each test then
// works in a tenant of its own. On the embedded default each test file starts from a copy of one
// migrated database (test/helpers/pglite-template.ts), made here.
export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  const migrated = url ? import('../src/db/migrate.js').then((m) => m.migrateDatabaseUrl(url)) : undefined;
  project.provide('pgliteTemplate', await ensurePgliteTemplate());
  await migrated;
}
