// GraphQL types must not depend on REST's wording: a label or helper both transports use lives in a
// neutral file (`<resource>.labels.ts`, `<resource>.geometry.ts`, `src/shared/`), never in a serializer.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const rest = join(src, 'rest');

const filesUnder = (dir: string, keep: (path: string) => boolean): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter(keep)
    .sort();

/** `file: 'specifier'` for each import or re-export (static, type-only or dynamic) REST owns. */
function restImports(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const serializer = /\.serializer(\.[cm]?[jt]s)?$/.test(target);
      if (serializer || target === rest || target.startsWith(rest + sep))
        found.push(`${relative(root, file)}: '${spec}'`);
    }
  }
  return found;
}

describe('module boundaries', () => {
  const graphqlFiles = filesUnder(join(src, 'modules'), (f) => f.endsWith('.graphql.ts'));

  it('finds the GraphQL type files', () => {
    expect(graphqlFiles.length).toBeGreaterThan(5);
  });

  it('no src/modules/**/*.graphql.ts imports a serializer or anything under src/rest/', () => {
    expect(restImports(graphqlFiles)).toEqual([]);
  });

  it('the neutral files both transports import do not import REST either', () => {
    const neutral = [
      ...filesUnder(join(src, 'modules'), (f) => /\.(labels|geometry)\.ts$/.test(f)),
      ...filesUnder(join(src, 'shared'), (f) => f.endsWith('.ts')),
    ];
    expect(restImports(neutral)).toEqual([]);
  });
});
