// API tokens are random, shown once, and stored only as a SHA-256 hash. A fast hash is right here
// (unlike passwords): the token carries 240 bits of entropy, so there is nothing to brute-force.
import { createHash, randomBytes } from 'node:crypto';

/** 40 base64url characters, never starting with `-`: `admin simulate --token -Ab…` would read it as an option. */
export function newToken(): string {
  let token: string;
  do token = randomBytes(30).toString('base64url');
  while (token.startsWith('-'));
  return token;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
