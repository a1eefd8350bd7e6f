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
