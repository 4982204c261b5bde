// npm run generate:schema — writes schema.graphql, the printed schema that users read.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/graphql/schema.js';

export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(path.resolve(import.meta.dirname, '..', 'schema.graphql'), printedSchema());
  console.log('wrote schema.graphql');
}
