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
