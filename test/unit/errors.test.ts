// What a failure means to a caller (src/errors.ts), for failures as the drivers throw them.
import { DriverAdapterError } from '@prisma/driver-adapter-utils';
import { describe, expect, it } from 'vitest';
import { toAppError } from '../../src/errors.js';

/** A PostgreSQL error as @prisma/adapter-pg throws it from a transaction's own statement (BEGIN, COMMIT). */
const adapterError = (code: string, message: string) =>
  new DriverAdapterError({
    kind: 'postgres',
    code,
    severity: 'FATAL',
    message,
    detail: undefined,
    column: undefined,
    hint: undefined,
    originalCode: code,
    originalMessage: message,
  } as ConstructorParameters<typeof DriverAdapterError>[0]);

describe('toAppError', () => {
  it('reads a driver-adapter error thrown as it is, as one under a Prisma error (probe F: a 500)', () => {
    expect(
      toAppError(adapterError('57P01', 'terminating connection due to administrator command'))?.code,
    ).toBe('SERVICE_UNAVAILABLE');
    expect(toAppError(adapterError('22021', 'invalid byte sequence'))?.code).toBe('NUL_CHARACTER');
    expect(toAppError(adapterError('23505', 'duplicate key'))).toBeNull();
  });

  it("reads pg's errors for a statement on a lost connection as the database unavailable", () => {
    for (const message of [
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
      'Connection terminated unexpectedly',
    ]) {
      expect(toAppError(new Error(message))?.code, message).toBe('SERVICE_UNAVAILABLE');
    }
  });
});
