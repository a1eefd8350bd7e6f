import { describe, expect, it } from 'vitest';
import { defaultPartition, murmur2, toPositive } from '../../domain/murmur2.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('murmur2', () => {
  // Vectors from Apache Kafka's UtilsTest.testMurmur2 (clients/src/test/java/.../UtilsTest.java);
  // "abc" and "" were cross-checked against kafkajs's default partitioner hash.
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
    ['', 275646681],
  ])('murmur2(%j) = %i', (input, expected) => {
    expect(murmur2(bytes(input))).toBe(expected);
  });

  it('hashes the UTF-8 bytes of multi-byte keys (all tail lengths)', () => {
    // Cross-checked against kafkajs; covers 1-, 2- and 3-byte tails and non-ASCII input.
    expect(murmur2(bytes('x'))).toBe(2121525046);
    expect(murmur2(bytes('xy'))).toBe(-1884506471);
    expect(murmur2(bytes('xyz'))).toBe(-2021271510);
    expect(murmur2(bytes('é€𝄞'))).toBe(983480520);
  });

  it('returns a signed 32-bit integer', () => {
    for (const s of ['a', 'bb', 'ccc', 'dddd', 'race-1:horse-2']) {
      const h = murmur2(bytes(s));
      expect(Number.isInteger(h)).toBe(true);
      expect(h).toBe(h | 0);
    }
  });
});

describe('defaultPartition', () => {
  it('masks the sign bit instead of taking an absolute value', () => {
    expect(toPositive(-1)).toBe(0x7fffffff);
    expect(toPositive(-2147483648)).toBe(0);
    expect(toPositive(42)).toBe(42);
  });

  // Expected partitions computed with kafkajs's DefaultPartitioner for the same key and partition count.
  it.each([
    ['foobar', 3, 0],
    ['race-123:horse-9', 6, 4],
    ['abc', 12, 3],
    ['21', 7, 3],
    ['é€𝄞', 5, 0],
    ['', 4, 1],
  ])('defaultPartition(%j, %i) = %i', (key, partitions, expected) => {
    expect(defaultPartition(key, partitions)).toBe(expected);
  });

  it('equals (murmur2 & 0x7fffffff) % partitions and is stable', () => {
    for (let i = 0; i < 500; i++) {
      const key = `race-${i}:horse-${i * 7}`;
      const p = defaultPartition(key, 9);
      expect(p).toBe((murmur2(bytes(key)) & 0x7fffffff) % 9);
      expect(defaultPartition(key, 9)).toBe(p);
    }
  });

  it('rejects a non-positive partition count', () => {
    expect(() => defaultPartition('k', 0)).toThrow(RangeError);
  });
});
