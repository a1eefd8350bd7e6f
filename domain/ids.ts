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

const ID_RE: Record<IdKind, RegExp> = {
  race: /^rac_[0-9a-z]{1,64}$/,
  horse: /^hrs_[0-9a-z]{1,64}$/,
  jockey: /^jky_[0-9a-z]{1,64}$/,
  trainer: /^trn_[0-9a-z]{1,64}$/,
  sire: /^sir_[0-9a-z]{1,64}$/,
  course: /^crs_[0-9a-z]{1,64}$/,
  owner: /^own_[0-9a-z]{1,64}$/,
  dam: /^dam_[0-9a-z]{1,64}$/,
};

/** True when `id` has the shape of an id of that kind. */
export function isId(kind: IdKind, id: string): boolean {
  return ID_RE[kind].test(id);
}
