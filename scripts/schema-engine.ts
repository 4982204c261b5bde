// Development tooling only: Prisma's schema engine compiled to WebAssembly, driven through an
// in-memory PGlite as the shadow database. Prisma's CLI needs a native engine that cannot be
// downloaded on every machine; the wasm build ships in npm. `@prisma/migrate` and
// `@prisma/internals` are internal packages, so package.json pins them exactly.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { newPglite } from '../src/db/pglite.js';

export const root = path.resolve(import.meta.dirname, '..');
export const schemaPath = path.join(root, 'prisma', 'schema.prisma');
export const migrationsDir = path.join(root, 'prisma', 'migrations');

const require = createRequire(import.meta.url);

/** The engine loader reads its .wasm from `@prisma/internals/build/`; npm puts it in its own package. */
function placeEngineWasm(): void {
  const internalsDir = path.dirname(require.resolve('@prisma/internals/package.json'));
  const target = path.join(internalsDir, 'build', 'schema_engine_bg.wasm');
  if (existsSync(target)) return;
  // The package exports only its JS entry; the .wasm sits beside it.
  const entry = require.resolve('@prisma/schema-engine-wasm', { paths: [internalsDir] });
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(path.join(path.dirname(entry), 'schema_engine_bg.wasm'), target);
}

type DiffTarget = Record<string, unknown> & { tag: string };
interface Engine {
  runCommand(command: 'diff', input: unknown): Promise<{ exitCode: number; stdout?: string | null }>;
  stop(): Promise<void>;
}

function migrationList(): DiffTarget {
  const lock = path.join(migrationsDir, 'migration_lock.toml');
  const dirs = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    : [];
  return {
    tag: 'migrations',
    baseDir: migrationsDir,
    lockfile: {
      path: 'migration_lock.toml',
      content: existsSync(lock) ? readFileSync(lock, 'utf8') : 'provider = "postgresql"\n',
    },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

/**
 * SQL that takes a database built from the migrations folder to what schema.prisma describes.
 * `emptyDatabase` makes the two empty databases it works in (tests load a dump taken after initdb).
 */
export async function diffMigrationsToSchema(
  emptyDatabase: () => Promise<PGlite> = async () => newPglite(),
): Promise<string> {
  placeEngineWasm();
  const { SchemaEngineWasm } = require('@prisma/migrate/dist/SchemaEngineWasm.js') as {
    SchemaEngineWasm: { setup(opts: unknown): Promise<Engine> };
  };
  const schema = readFileSync(schemaPath, 'utf8');
  // The engine builds the migrations in the adapter's shadow database. The adapter's own would be a
  // PGlite without pg_trgm that is never closed, and it runs scripts without awaiting them (a failing
  // migration would go unnoticed), so the shadow is ours.
  const main = await emptyDatabase();
  const shadow = await emptyDatabase();
  const factory = new PrismaPGlite(main);
  const engine = await SchemaEngineWasm.setup({
    adapter: bindMigrationAwareSqlAdapterFactory({
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: () => factory.connect(),
      connectToShadowDb: async () => {
        const adapter = await new PrismaPGlite(shadow).connect();
        adapter.executeScript = async (script) => {
          await shadow.exec(script);
        };
        return adapter;
      },
    }),
    schemaContext: { schemaFiles: [[schemaPath, schema]] },
  });
  try {
    const result = await engine.runCommand('diff', {
      from: migrationList(),
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? '';
    // An empty diff still prints a comment line.
    return /^\s*(--.*\n?\s*)*$/.test(sql) ? '' : sql;
  } finally {
    await engine.stop();
    await shadow.close();
    await main.close();
  }
}
