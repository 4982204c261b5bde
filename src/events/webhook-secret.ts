// A webhook's signing secret: made here (Standard Webhooks' `whsec_` + base64 of random bytes), stored
// recoverable (the server signs with it on every attempt, so a hash would not do), sealed with
// AES-256-GCM when WEBHOOKS_SECRETS_KEY is set, and used to sign each message:
// `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" under the decoded secret>`.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** 32 random bytes: within the 24–64 the specification allows. */
const SECRET_BYTES = 32;

/** A new secret, `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The stored form: `plain:<secret>` without a key, `aes-256-gcm:<iv>:<tag>:<data>` (base64url) with one. */
export function sealSecret(secret: string, key: Buffer | undefined): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['aes-256-gcm', iv, cipher.getAuthTag(), data]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

/** Why a stored secret cannot be read (logged and recorded as the attempt's error). */
export class SecretUnreadable extends Error {}

/** The secret back from its stored form. */
export function openSecret(stored: string, key: Buffer | undefined): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  const [scheme, iv, tag, data] = stored.split(':');
  if (scheme !== 'aes-256-gcm' || iv === undefined || tag === undefined || data === undefined) {
    throw new SecretUnreadable('the stored signing secret has an unknown form');
  }
  if (!key) throw new SecretUnreadable('the signing secret is encrypted but WEBHOOKS_SECRETS_KEY is not set');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretUnreadable(
      'the signing secret cannot be decrypted: WEBHOOKS_SECRETS_KEY is not the key it was stored with',
    );
  }
}

/** One signature of a message (`v1,<base64>`). */
export function signMessage(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` header: one signature per secret, space-separated, the current secret's
 * first (Standard Webhooks: a receiver accepts the message when any signature verifies; during a
 * rotation the previous secret signs too, so receivers can switch secrets at their own pace).
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => signMessage(secret, messageId, timestamp, body)).join(' ');
}

/**
 * The columns that sign an endpoint `w`'s deliveries, as the delivery queries read them: its
 * `secret`, and its `previousSecret` while that still signs (null otherwise).
 */
export const SIGNING_SECRETS_SQL = `w."secret",
  CASE WHEN w."previousSecretExpiresAt" > now() THEN w."previousSecret" END AS "previousSecret"`;

/**
 * An endpoint's signing secrets as SIGNING_SECRETS_SQL reads them, opened: the current one first. A
 * previous secret that cannot be opened (sealed under a key since lost, before the rotation that
 * replaced it) is left out: the current one signs alone, rather than every attempt failing.
 */
export function signingSecrets(
  row: { readonly secret: string; readonly previousSecret: string | null },
  open: (stored: string) => string,
): string[] {
  const current = open(row.secret);
  if (row.previousSecret === null) return [current];
  try {
    return [current, open(row.previousSecret)];
  } catch (err) {
    if (err instanceof SecretUnreadable) return [current];
    throw err;
  }
}
