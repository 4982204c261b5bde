// GraphQL types must not depend on REST's wording: a label or helper both transports use lives in a
// neutral file (`<resource>.labels.ts`, `<resource>.geometry.ts`, `src/shared/`), never in a serializer.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const rest = join(src, 'rest');
const validation = join(src, 'validation');

const filesUnder = (dir: string, keep: (path: string) => boolean): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter(keep)
    .sort();

/** `file: 'specifier'` for each relative import or re-export (static, type-only or dynamic) `banned` names. */
function importsOf(files: string[], banned: (target: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (!spec.startsWith('.')) continue;
      if (banned(resolve(dirname(file), spec))) found.push(`${relative(root, file)}: '${spec}'`);
    }
  }
  return found;
}

/** Imports of a serializer or anything REST owns. */
const restImports = (files: string[]): string[] =>
  importsOf(
    files,
    (target) =>
      /\.serializer(\.[cm]?[jt]s)?$/.test(target) || target === rest || target.startsWith(rest + sep),
  );

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

  // The validator's rooms import downwards only: rule files may use the engine, messages and PHP
  // values; none of those imports a rule file, and validator.ts (the entry point) is imported by no one inside.
  it('src/validation: the engine and its helpers import no rule file, nothing inside imports validator.ts', () => {
    const files = filesUnder(validation, (f) => f.endsWith('.ts'));
    const rulesDir = join(validation, 'rules');
    const entry = (target: string): boolean => target.replace(/\.js$/, '') === join(validation, 'validator');
    const helpers = files.filter((f) => !f.startsWith(rulesDir + sep) && !entry(f.replace(/\.ts$/, '')));
    expect(helpers.map((f) => relative(validation, f))).toContain('engine.ts');
    expect(importsOf(helpers, (target) => target.startsWith(rulesDir + sep))).toEqual([]);
    expect(importsOf(files, entry)).toEqual([]);
  });
});
