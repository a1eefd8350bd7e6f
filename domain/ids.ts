import { createHash } from 'node:crypto';

/** Id prefixes: every public id is a prefix followed by an opaque token. */
export const ID_PREFIX = {
  race: 'rac_',
  horse: 'hrs_',
  jockey: 'jky_',
  trainer: 'trn_',
  sire: 'sir_',
  course: 'crs_',
  owner: 'own_',
  dam: 'dam_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * A stable id from a source identity: the same source key always gives the same id, so re-imports and
 * rebuilds agree. 80 bits of SHA-256, base32 encoded (16 characters).
 */
export function makeId(kind: IdKind, sourceKey: string): string {
  const digest = createHash('sha256').update(sourceKey).digest();
  let out = '';
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    acc = (acc << 8) | digest[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return ID_PREFIX[kind] + out;
}

/** The longest token after an id's prefix. */
const MAX_TOKEN = 64;

/**
 * True when `id` has the shape of an id of that kind: its prefix, then 1 to 64 of [0-9a-z]. Checked by
 * character, not by a regular expression: every card validates about seventy ids, twice (the processor
 * and the view), and a short string's regular-expression call cost several times this loop.
 */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = ID_PREFIX[kind];
  const n = id.length;
  if (n <= prefix.length || n > prefix.length + MAX_TOKEN || !id.startsWith(prefix)) return false;
  for (let i = prefix.length; i < n; i++) {
    const c = id.charCodeAt(i);
    // 0-9 or a-z
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}
