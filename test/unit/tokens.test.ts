// Tokens are pasted into command lines (`admin simulate --token …`): one starting with `-` would be
// read as an option (1 in 64 of base64url strings did, and the admin CLI test failed on one).
import { describe, expect, it } from 'vitest';
import { hashToken, newToken } from '../../src/auth/tokens.js';

describe('newToken', () => {
  it('is 40 base64url characters and never starts with a dash', () => {
    const tokens = Array.from({ length: 3000 }, newToken);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{39}$/);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('is stored as its SHA-256 in hex', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
