/**
 * Kafka's murmur2 partitioning hash, bit-for-bit compatible with the Java client's
 * `org.apache.kafka.common.utils.Utils.murmur2` and kafkajs's default partitioner. The embedded log
 * uses it so that a key lands on the same partition number in embedded and Kafka mode, which keeps
 * per-key ordering and partition-local state identical across the two deployments.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/**
 * Java-compatible murmur2 of a byte array, as a signed 32-bit integer (what Java's `int` returns).
 * `Math.imul` gives the same wrap-around 32-bit multiplication Java does.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const length4 = length >>> 2;

  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4]! | (data[i4 + 1]! << 8) | (data[i4 + 2]! << 16) | (data[i4 + 3]! << 24) | 0;
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }

  // Tail bytes fall through on purpose, exactly as the Java switch does.
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }

  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's "toPositive": masks the sign bit rather than using Math.abs (which overflows for MIN_VALUE in Java). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/**
 * The partition Kafka's (and kafkajs's) default partitioner picks for a keyed record:
 * `toPositive(murmur2(utf8(key))) % partitions`.
 */
export function defaultPartition(key: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  }
  return toPositive(murmur2(Buffer.from(key, 'utf8'))) % partitions;
}
