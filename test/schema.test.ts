import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../scripts/print-schema.js';

describe('schema.graphql', () => {
  it('is the printed schema of the code', () => {
    const checkedIn = readFileSync(path.resolve(import.meta.dirname, '..', 'schema.graphql'), 'utf8');
    expect(
      checkedIn,
      'schema.graphql is out of date with the code: run `npm run generate:schema` and commit the result',
    ).toBe(printedSchema());
  });
});
