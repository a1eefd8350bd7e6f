/** Small non-cryptographic hash pieces shared by in-memory tables and fingerprints. */

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the output; returns an unsigned 32-bit value. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One MurmurHash3 (x86, 32-bit) body round: word `w` mixed into state `h`; returns a signed 32-bit value. */
export function murmurRound(h: number, w: number): number {
  let k = Math.imul(w, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** A 32-bit value as eight hex digits. */
export function hex8(h: number): string {
  return h.toString(16).padStart(8, '0');
}

/** What the second lane of a two-lane hash mixes into each word (the two lanes see different words). */
const LANE2 = 0x85ebca6b;

/**
 * A 64-bit fingerprint of bytes[from, to), as sixteen hex digits: two MurmurHash3 lanes over its
 * little-endian 32-bit words, the tail and the length in a last word. Not cryptographic: it tells
 * apart values a service computed, not values an adversary chose.
 */
export function bytesFingerprint(b: Uint8Array, from: number, to: number): string {
  let h1 = 0x9747b28c;
  let h2 = 0x5bd1e995;
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const w = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    h1 = murmurRound(h1, w);
    h2 = murmurRound(h2, w ^ LANE2);
  }
  let tail = 0;
  for (let s = 0; i < to; i++, s += 8) tail |= b[i]! << s;
  h1 = murmurRound(murmurRound(h1, tail), to - from);
  h2 = murmurRound(murmurRound(h2, tail ^ LANE2), (to - from) ^ LANE2);
  return hex8(fmix32(h1)) + hex8(fmix32(h2));
}
