// Read by the Prisma CLI only (generate here; `prisma migrate deploy` where the native engine is
// available). The service itself migrates on start with src/db/migrate.ts.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
