// `npm run build`: src/**/*.ts → dist/**/*.js, file by file (no bundle), with the other files of src
// (openapi-examples.json) copied beside them. `npm start` and `npm run admin` run it first, then
// plain Node on dist: no TypeScript loader at run time, whose hooks thread every import went through
// (a server start took 36 % less CPU, an admin command 30 % less: bench/RESULTS.md, "ninth session").
//
// Plain JavaScript, so it needs nothing but esbuild. A file whose output is unchanged is not
// written; a changed one is written aside and renamed into place, so a process starting meanwhile
// (two admin commands at once) reads the old file or the new one, never half of one.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
export const DIST = path.join(ROOT, 'dist');

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir, prefix = '') {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(prefix, e.name);
    return e.isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

/** Writes `content` to `file` unless it already holds exactly that; atomically when it writes. */
function writeIfChanged(file, content) {
  if (existsSync(file) && readFileSync(file).equals(content)) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, content);
  renameSync(aside, file);
  return true;
}

/**
 * Builds dist/ from src/; returns how many files it wrote. Without src/ beside a dist/ (the container
 * image's runtime, which has no sources) there is nothing to build: `npm start` and `npm run admin`
 * run what is there (they stopped with MODULE_NOT_FOUND there; probe O).
 */
export async function buildDist() {
  if (!existsSync(SRC) && existsSync(DIST)) return 0;
  if (!existsSync(path.join(SRC, 'generated'))) {
    throw new Error('src/generated is missing: run `npm run generate:prisma` (npm install runs it).');
  }
  const sources = filesUnder(SRC);
  const result = await build({
    entryPoints: sources.filter((f) => f.endsWith('.ts')).map((f) => path.join(SRC, f)),
    outdir: DIST,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  const wanted = new Set();
  let written = 0;
  for (const out of result.outputFiles) {
    wanted.add(path.relative(DIST, out.path));
    if (writeIfChanged(out.path, Buffer.from(out.contents))) written++;
  }
  for (const rel of sources.filter((f) => !f.endsWith('.ts'))) {
    wanted.add(rel);
    if (writeIfChanged(path.join(DIST, rel), readFileSync(path.join(SRC, rel)))) written++;
  }
  // What a removed or renamed source left behind, and what a build that died wrote aside (not what a
  // build running now has: a minute old at least).
  for (const rel of filesUnder(DIST)) {
    const file = path.join(DIST, rel);
    if (wanted.has(rel) || (rel.endsWith('.tmp') && Date.now() - statSync(file).mtimeMs < 60_000)) continue;
    rmSync(file, { force: true });
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    await buildDist();
  } catch (err) {
    // esbuild has printed the errors themselves.
    console.error(`Build failed: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
    process.exit(1);
  }
}
