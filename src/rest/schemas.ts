// JSON Schema building blocks for the REST bodies (TypeBox: JSON Schema values with their TS types).
// Each serializer declares its output schema once, next to itself, from these pieces; the envelopes
// (list, count, data, errors) are defined here once. src/rest/openapi.ts turns them into the
// OpenAPI document and test/helpers/app.ts validates every REST response of the suite against it.
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';

/** A closed object: a key the schema does not list fails the contract test. Keys in the spec's order. */
export const Obj = <P extends TProperties>(props: P, title?: string) =>
  Type.Object(props, { additionalProperties: false, ...(title ? { title } : {}) });

/** `T | null`. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Str = (description?: string) => Type.String(description ? { description } : {});
export const Int = (description?: string) => Type.Integer(description ? { description } : {});
export const Bool = (description?: string) => Type.Boolean(description ? { description } : {});
/** A PHP float: a whole value is still written with a fraction (`41.0`). */
export const Float = (description?: string) => Type.Number(description ? { description } : {});
/** One of the given integers (a status or type code). */
export const IntEnum = (values: readonly number[], description?: string) =>
  Type.Integer({ enum: [...values], ...(description ? { description } : {}) });
export const StrEnum = (values: readonly string[], description?: string) =>
  Type.String({ enum: [...values], ...(description ? { description } : {}) });

/** Short opaque id (decisions, "Ids"). */
export const Id = (description?: string) =>
  Type.String({ minLength: 1, ...(description ? { description } : {}) });

/** `2026-11-21T09:05:03.123000Z` (isoMicros). */
export const IsoMicros = () =>
  Type.String({
    format: 'date-time',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$',
    examples: ['2026-11-21T09:05:03.123000Z'],
  });
/** `2026-11-21T09:05:03+00:00` (isoOffset: guest devices and sessions). */
export const IsoOffset = () =>
  Type.String({
    format: 'date-time',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$',
    examples: ['2026-11-21T09:05:03+00:00'],
  });
/** `2026-11-21` (dateOnly). */
export const DateOnly = () => Type.String({ format: 'date' });
/** `2026-11-21 9:05 AM` in the location's time zone (localDisplay). */
export const LocalDisplay = () =>
  Type.String({
    pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{1,2}:\\d{2} (AM|PM)$',
    examples: ['2026-11-21 9:05 AM'],
  });
/** `HH:MM:SS`, hours past 24 (hms). */
export const Hms = () => Type.String({ pattern: '^\\d{2,}:\\d{2}:\\d{2}$', examples: ['49:03:10'] });
/** 1024-based human-readable size (humanSize): `0 B`, `1.5 KB`, `12.34 MB`. */
export const HumanSize = () =>
  Type.String({ pattern: '^\\d+(\\.\\d{1,2})? (B|KB|MB|GB|TB)$', examples: ['12.34 MB'] });

// ---------------------------------------------------------------------------------------------
// Envelopes (spec 1.1 and the decisions' "Pagination" and "Errors")

/** Laravel's simple-pagination envelope around `item`. */
export const ListEnvelope = <T extends TSchema>(item: T) =>
  Obj({
    data: Type.Array(item),
    links: Obj(
      {
        first: Type.String({ format: 'uri' }),
        last: Type.Null(),
        prev: Nullable(Type.String({ format: 'uri' })),
        next: Nullable(Type.String({ format: 'uri' })),
      },
      'PageLinks',
    ),
    meta: Obj(
      {
        current_page: Type.Integer({ minimum: 1 }),
        from: Nullable(Type.Integer({ minimum: 1 })),
        to: Nullable(Type.Integer({ minimum: 1 })),
        path: Type.String({ format: 'uri' }),
        per_page: Type.Integer({ minimum: 1, maximum: 100 }),
      },
      'PageMeta',
    ),
  });

/** `{ "count": N }`. */
export const CountBody = Obj({ count: Type.Integer({ minimum: 0 }) }, 'Count');

/** `{ "data": item }`. */
export const DataBody = <T extends TSchema>(item: T) => Obj({ data: item });

/** 400, 401, 403, 404 (unknown route), 405, 410, 413, 429, 500. */
export const MessageBody = Obj({ message: Type.String() }, 'Message');
/** 404 of an absent record: `{ "error": "Record not found." }`. */
export const NotFoundBody = Obj({ error: Type.String() }, 'RecordNotFound');
/** 422: Laravel's summary and every field's messages. */
export const ValidationBody = Obj(
  {
    message: Type.String(),
    errors: Type.Record(Type.String(), Type.Array(Type.String(), { minItems: 1 })),
  },
  'ValidationError',
);
