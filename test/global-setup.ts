// On PostgreSQL (TEST_DATABASE_URL) the schema is migrated once for the whole run; each test then
// works in a tenant of its own. On the embedded default every test file migrates its own
// in-memory database (see test/helpers/app.ts).
export default async function setup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const { migrateDatabaseUrl } = await import('../src/db/migrate.js');
  await migrateDatabaseUrl(url);
}
