// What a background pass (webhook delivery, sweeps, the token-use flush) logs of a failure: an outage
// of the database as its plain reason, without a stack (probe N saw the delivery's "Query read
// timeout" logged with one), and anything else whole, a bug's stack included.
import { describe, expect, it } from 'vitest';
import { failureFields } from '../../src/errors.js';

describe('failureFields', () => {
  it('an outage: its reason alone; anything else: the whole error', () => {
    expect(failureFields(new Error('Query read timeout'))).toEqual({ reason: 'Query read timeout' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    expect(failureFields(refused)).toEqual({ reason: 'connect ECONNREFUSED 127.0.0.1:5432' });
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(failureFields(bug)).toEqual({ err: bug });
  });
});
