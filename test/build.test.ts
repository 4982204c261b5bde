// `npm run build` (scripts/build.mjs), which `npm start` and `npm run admin` run first: dist/ mirrors
// src/, and a build with nothing new writes nothing (a process starting meanwhile is not disturbed).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDist, DIST } from '../scripts/build.mjs';

const SRC = path.resolve(import.meta.dirname, '../src');

describe('npm run build', () => {
  it('writes nothing when dist/ is up to date, and removes what no source makes any more', async () => {
    // The global setup built it for this run.
    expect(existsSync(path.join(DIST, 'server.js'))).toBe(true);
    expect(existsSync(path.join(DIST, 'cli/admin.js'))).toBe(true);
    // Files that are not TypeScript are copied as they are.
    expect(readFileSync(path.join(DIST, 'rest/openapi-examples.json'), 'utf8')).toBe(
      readFileSync(path.join(SRC, 'rest/openapi-examples.json'), 'utf8'),
    );
    const stale = path.join(DIST, 'modules/removed-long-ago.js');
    writeFileSync(stale, 'export {};\n');
    expect(await buildDist()).toBe(0);
    expect(existsSync(stale)).toBe(false);
  });
});
