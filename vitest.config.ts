import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // graphql 16 has no "exports": Node loads its CommonJS entry for everyone, but Vite would pick the
  // ESM one for our imports while CommonJS dependencies still require the other, giving two copies
  // of graphql in one process. Point Vite at the entry Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Vitest's default is cores − 1: one worker on a two-core CI machine, where most of a test file's
    // time is spent waiting on the database and child processes. Two workers there halve the run
    // (421 s → 263 s measured, PostgreSQL, idle machine).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each worker loads the app's modules once, not once per file: 24 % off the PostgreSQL run
    // (202 → 154 s, 340 → 249 s of CPU, measured on an idle two-core machine). Files therefore share
    // module state: a test that changes process.env or a module's state puts it back (raw-rows does).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
