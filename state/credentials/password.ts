/**
 * Password hashing with scrypt (node:crypto, memory-hard, no native add-on). A hash is stored as one
 * self-describing string, `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>`, so the parameters can be
 * raised later without invalidating existing accounts: verification reads them from the string.
 *
 * The async scrypt runs on libuv's thread pool, so a sign-in does not block the event loop; sign-in
 * throttling (api/) bounds how many of these an attacker can make the service compute.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  /** log2 of the CPU/memory cost N */
  logN: number;
  r: number;
  p: number;
}

/**
 * N = 2^15, r = 8: 32 MiB and roughly 50-100 ms per hash on one core, OWASP's minimum for scrypt
 * (2^17 would be 128 MiB per concurrent sign-in, too much for a 2-core box serving an API too).
 */
export const DEFAULT_SCRYPT: ScryptParams = Object.freeze({ logN: 15, r: 8, p: 1 });

const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.logN;
  // scrypt needs 128 * N * r bytes; Node's default maxmem (32 MiB) is exactly that for our default, which
  // it refuses, so allow twice the need.
  const maxmem = 2 * 128 * N * params.r + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N, r: params.r, p: params.p, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** A new salted hash of `password` in the stored string form. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return ['scrypt', params.logN, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** True when `password` matches the stored hash; false for a malformed hash. Compares in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, salt, { logN, r, p });
  return timingSafeEqual(actual, expected);
}
