/**
 * A second key carried inside an event's vector as two doubles (its tag), so that one index per parent
 * key (a jockey, a trainer) can answer the composite keys of catalogue.md (jockey+course, trainer+course,
 * trainer+jockey) by filtering its events on the tag, instead of one index per pair.
 *
 * Exact for every identifier this service mints (ids.ts: a three-letter kind, `_`, then 16 characters
 * of lower-case Crockford base32): the kind and the first 7 characters go in the first double (15 + 35
 * bits), the last 9 in the second (45 bits), each character as its 5-bit base32 value, so two such
 * identifiers share a tag exactly when they are equal. Any other string (identifiers of another length
 * or alphabet, which validation allows) gets 96 bits of its SHA-256, 48 in the first double's range
 * above 2^50 (so never the tag of a minted identifier) and 48 in the second: two such strings share a
 * tag with probability 2^-96 (docs/features.md, "Readings of catalogue.md").
 */

import { createHash } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** base32 value + 1 of each char code below 128, 0 when the character is not in the alphabet */
const DIGIT = new Int8Array(128);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i + 1;

const TWO_35 = 2 ** 35;
const TWO_50 = 2 ** 50;

/** The tag of `id`: writes its two doubles into `out` at `at` and `at + 1`. */
export function writeTag(id: string, out: number[], at: number): void {
  if (!packMinted(id, out, at)) hashInto(id, out, at);
}

/** The two doubles of `id`'s tag, as a new pair. */
export function tagOf(id: string): [number, number] {
  const out = [0, 0];
  writeTag(id, out, 0);
  return out as [number, number];
}

/** Packs a minted identifier (`abc_` + 16 base32 characters); false for anything else. */
function packMinted(id: string, out: number[], at: number): boolean {
  if (id.length !== 20 || id.charCodeAt(3) !== 95 /* _ */) return false;
  let kind = 0;
  for (let i = 0; i < 3; i++) {
    const c = id.charCodeAt(i) - 97; // a..z
    if (c < 0 || c > 25) return false;
    kind = kind * 26 + c;
  }
  const a = base32(id, 4, 11);
  const b = base32(id, 11, 20);
  if (a < 0 || b < 0) return false;
  out[at] = kind * TWO_35 + a; // < 17,576 * 2^35 < 2^50
  out[at + 1] = b;
  return true;
}

/** The base-32 value of id's characters [from, to) (at most 10 of them), -1 when one is not in the alphabet. */
function base32(id: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const c = id.charCodeAt(i);
    const d = c < 128 ? DIGIT[c]! : 0;
    if (d === 0) return -1;
    v = v * 32 + (d - 1);
  }
  return v;
}

/** The tags of strings that are not minted identifiers (rare: any input this service produces is minted). */
const hashed = new Map<string, [number, number]>();
const HASHED_LIMIT = 100_000;

/** 96 bits of the string's SHA-256: 48 above 2^50 in the first double, 48 in the second. */
function hashInto(id: string, out: number[], at: number): void {
  let tag = hashed.get(id);
  if (!tag) {
    const d = createHash('sha256').update(id, 'utf8').digest();
    tag = [TWO_50 + d.readUIntBE(0, 6), d.readUIntBE(6, 6)];
    if (hashed.size >= HASHED_LIMIT) hashed.clear();
    hashed.set(id, tag);
  }
  out[at] = tag[0];
  out[at + 1] = tag[1];
}
