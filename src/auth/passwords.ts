// Dashboard passwords: scrypt (Node's built-in, memory-hard) with a random salt per password, stored
// in a self-describing format so the cost can be raised later without breaking stored hashes:
//   scrypt$N=16384,r=8,p=1$<salt, base64url>$<key, base64url>
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

const KEY_LENGTH = 64;
const COST = { N: 16384, r: 8, p: 1 } as const;

function derive(password: string, salt: Buffer, opts: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST, KEY_LENGTH);
  return `scrypt$N=${COST.N},r=${COST.r},p=${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches a hash written by `hashPassword` (any cost it recorded). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, params, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !params || !saltText || !keyText) return false;
  const cost = Object.fromEntries(params.split(',').map((kv) => kv.split('=') as [string, string]));
  const N = Number(cost.N);
  const r = Number(cost.r);
  const p = Number(cost.p);
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  const expected = Buffer.from(keyText, 'base64url');
  const key = await derive(password, Buffer.from(saltText, 'base64url'), { N, r, p }, expected.length);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
