// Configuration only: plugins, scalars and the context type. Types live beside their resource in
// src/modules/*/*.graphql.ts; src/graphql/schema.ts imports them and builds the schema once.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError } from 'graphql';
import type { AppContext } from '../context.js';
import type PrismaTypes from '../generated/prisma/pothos-types.js';
import { getDatamodel } from '../generated/prisma/pothos-types.js';
import { storableInstant } from '../shared/dates.js';
import { isoMicros } from '../shared/format.js';

export const builder = new SchemaBuilder<{
  Context: AppContext;
  PrismaTypes: PrismaTypes;
  Scalars: { DateTime: { Input: Date; Output: Date } };
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    // A resolver that forgets to spread plugin-prisma's `query` would load relations one by one.
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'error',
  },
  relay: { clientMutationId: 'omit', cursorType: 'String' },
});

builder.scalarType('DateTime', {
  description: 'UTC date-time, `2026-11-21T09:05:03.123000Z` (the REST shape)',
  serialize: (d) => isoMicros(d) ?? '',
  parseValue: (v) => {
    const d = new Date(String(v));
    // A GraphQLError: graphql-js reports it as the caller's coercion error (another error is masked).
    if (!storableInstant(d.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 date-time.');
    return d;
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/** The schema types of `builder`, for helpers that receive a field builder. */
export type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
