/**
 * Binary encoding of the embedded log's record runs. A run is what Kafka calls a record batch: the
 * records one produce call appended to one partition, stored as a single store value. Storing runs
 * instead of single records keeps LevelDB writes sequential and store operations per record near zero.
 *
 * Run layout (big-endian):
 *   u8 version | u16 topic length, topic | u32 partition | f64 base offset | u32 record count
 *   then per record: u32 offset delta | f64 timestamp | u32 key length, key |
 *   i32 value length (-1 = null), value | u16 header count, then per header u32 length + name,
 *   u32 length + value
 * Each record carries its offset delta so compaction can drop records without renumbering the rest.
 */
import { RacingError } from '../../domain/errors.js';
import { murmur2, toPositive } from '../../domain/murmur2.js';
import type { LogRecord, OutRecord } from '../log-port.js';

const RUN_VERSION = 1;
const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A partition's share of one produce call, in call order. */
export interface PendingRun {
  readonly partition: number;
  readonly records: OutRecord[];
}

/**
 * Splits records by partition, keeping call order within each: the explicit partition, else Kafka's
 * default partitioner on the key's UTF-8 bytes. Returns `{ invalid }` instead when a record names a
 * partition out of range, so the caller can reject the whole call before writing anything.
 */
export function splitByPartition(
  records: readonly OutRecord[],
  partitions: number,
): { runs: PendingRun[] } | { invalid: number } {
  const byPartition = new Map<number, OutRecord[]>();
  let scratch = Buffer.allocUnsafe(256);
  for (const r of records) {
    let p = r.partition;
    if (p === undefined) {
      if (scratch.length < r.key.length * 3) scratch = Buffer.allocUnsafe(r.key.length * 3);
      // Writing into a reused buffer avoids one allocation per record on the produce hot path.
      const n = scratch.write(r.key, 0, 'utf8');
      p = toPositive(murmur2(scratch.subarray(0, n))) % partitions;
    } else if (!Number.isInteger(p) || p < 0 || p >= partitions) {
      return { invalid: p };
    }
    let run = byPartition.get(p);
    if (run === undefined) {
      run = [];
      byPartition.set(p, run);
    }
    run.push(r);
  }
  return { runs: [...byPartition].map(([partition, rs]) => ({ partition, records: rs })) };
}

/** Encodes one run into a single buffer (two passes: sizes, then bytes, so there is one allocation). */
export function encodeRun(topic: string, run: PendingRun, baseOffset: number, defaultTimestamp: number): Buffer {
  const topicLen = Buffer.byteLength(topic, 'utf8');
  let size = 1 + 2 + topicLen + 4 + 8 + 4;
  for (const r of run.records) {
    size += 4 + 8 + 4 + Buffer.byteLength(r.key, 'utf8') + 4 + (r.value === null ? 0 : r.value.length) + 2;
    if (r.headers !== undefined) {
      for (const name of Object.keys(r.headers)) {
        size += 8 + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(r.headers[name]!, 'utf8');
      }
    }
  }
  const buf = Buffer.allocUnsafe(size);
  let o = buf.writeUInt8(RUN_VERSION, 0);
  o = buf.writeUInt16BE(topicLen, o);
  o += buf.write(topic, o, 'utf8');
  o = buf.writeUInt32BE(run.partition, o);
  o = buf.writeDoubleBE(baseOffset, o);
  o = buf.writeUInt32BE(run.records.length, o);
  for (let delta = 0; delta < run.records.length; delta++) {
    const r = run.records[delta]!;
    o = buf.writeUInt32BE(delta, o);
    o = buf.writeDoubleBE(r.timestamp ?? defaultTimestamp, o);
    o = writeString(buf, o, r.key);
    if (r.value === null) o = buf.writeInt32BE(-1, o);
    else {
      o = buf.writeInt32BE(r.value.length, o);
      o += r.value.copy(buf, o);
    }
    const names = r.headers === undefined ? [] : Object.keys(r.headers);
    o = buf.writeUInt16BE(names.length, o);
    for (const name of names) {
      o = writeString(buf, o, name);
      o = writeString(buf, o, r.headers![name]!);
    }
  }
  return buf;
}

function writeString(buf: Buffer, o: number, s: string): number {
  const len = buf.write(s, o + 4, 'utf8');
  buf.writeUInt32BE(len, o);
  return o + 4 + len;
}

/** Where each record of a run starts and ends, with its offset and key, without decoding values. */
interface RunLayout {
  readonly baseOffset: number;
  readonly bodyStart: number;
  readonly entries: { offset: number; start: number; end: number; key: string }[];
}

function header(buf: Buffer, topic: string, partition: number) {
  if (buf[0] !== RUN_VERSION) throw corrupt(topic, partition, `unsupported run format ${buf[0]}`);
  const topicLen = buf.readUInt16BE(1);
  let o = 3 + topicLen;
  // Runs name their topic and partition so a misfiled run is caught instead of served as data.
  if (buf.toString('utf8', 3, o) !== topic || buf.readUInt32BE(o) !== partition) {
    throw corrupt(topic, partition, 'run belongs to another partition');
  }
  o += 4;
  const baseOffset = buf.readDoubleBE(o);
  const count = buf.readUInt32BE(o + 8);
  return { baseOffset, count, bodyStart: o + 12 };
}

function corrupt(topic: string, partition: number, why: string): RacingError {
  return new RacingError('internal', `embedded log ${topic}/${partition} is corrupt: ${why}`);
}

/** Skips over one encoded record starting at `o`; returns the record's key and its end. */
function scan(buf: Buffer, o: number): { key: string; end: number } {
  let p = o + 12;
  const keyLen = buf.readUInt32BE(p);
  const key = buf.toString('utf8', p + 4, p + 4 + keyLen);
  p += 4 + keyLen;
  const valueLen = buf.readInt32BE(p);
  p += 4 + Math.max(valueLen, 0);
  const count = buf.readUInt16BE(p);
  p += 2;
  for (let i = 0; i < count * 2; i++) p += 4 + buf.readUInt32BE(p);
  return { key, end: p };
}

/** The offsets, keys and byte ranges of a run's records (for compaction). */
export function layoutRun(buf: Buffer, topic: string, partition: number): RunLayout {
  const { baseOffset, count, bodyStart } = header(buf, topic, partition);
  const entries: RunLayout['entries'] = [];
  let o = bodyStart;
  for (let i = 0; i < count; i++) {
    const { key, end } = scan(buf, o);
    entries.push({ offset: baseOffset + buf.readUInt32BE(o), start: o, end, key });
    o = end;
  }
  return { baseOffset, bodyStart, entries };
}

/** A copy of the run holding only the records `keep` selects, or undefined when none is kept. */
export function filterRun(buf: Buffer, layout: RunLayout, keep: (offset: number, key: string) => boolean) {
  const kept = layout.entries.filter((e) => keep(e.offset, e.key));
  if (kept.length === 0) return undefined;
  const parts = [buf.subarray(0, layout.bodyStart), ...kept.map((e) => buf.subarray(e.start, e.end))];
  const out = Buffer.concat(parts);
  out.writeUInt32BE(kept.length, layout.bodyStart - 4);
  return { buf: out, count: kept.length };
}

/**
 * Appends the run's records with offsets in [from, to) to `out`, stopping once `out` holds `max`.
 * Values are copied out of the run so that a consumer keeping one record (a materialised view does)
 * does not pin the whole run in memory.
 */
export function decodeRun(
  buf: Buffer,
  topic: string,
  partition: number,
  from: number,
  to: number,
  max: number,
  out: LogRecord[],
): void {
  const { baseOffset, count, bodyStart } = header(buf, topic, partition);
  let o = bodyStart;
  for (let i = 0; i < count && out.length < max; i++) {
    const offset = baseOffset + buf.readUInt32BE(o);
    if (offset >= to) return;
    if (offset < from) {
      o = scan(buf, o).end;
      continue;
    }
    const timestamp = buf.readDoubleBE(o + 4);
    o += 12;
    const keyLen = buf.readUInt32BE(o);
    const key = buf.toString('utf8', o + 4, o + 4 + keyLen);
    o += 4 + keyLen;
    const valueLen = buf.readInt32BE(o);
    o += 4;
    let value: Buffer | null = null;
    if (valueLen >= 0) {
      // a view of the run read from the store (no copy): consumers treat values as read-only
      value = buf.subarray(o, o + valueLen);
      o += valueLen;
    }
    const headerCount = buf.readUInt16BE(o);
    o += 2;
    let headers = EMPTY_HEADERS;
    if (headerCount > 0) {
      const pairs: [string, string][] = [];
      for (let h = 0; h < headerCount; h++) {
        const nameLen = buf.readUInt32BE(o);
        const name = buf.toString('utf8', o + 4, o + 4 + nameLen);
        o += 4 + nameLen;
        const valLen = buf.readUInt32BE(o);
        pairs.push([name, buf.toString('utf8', o + 4, o + 4 + valLen)]);
        o += 4 + valLen;
      }
      // fromEntries defines own properties, so a header named "__proto__" cannot touch the prototype.
      headers = Object.fromEntries(pairs);
    }
    out.push({ topic, partition, offset, key, value, timestamp, headers });
  }
}

/** Index entry value: the run's sequence number and its current record count. */
export function encodeIndex(seq: number, count: number): Buffer {
  const buf = Buffer.allocUnsafe(12);
  buf.writeDoubleBE(seq, 0);
  buf.writeUInt32BE(count, 8);
  return buf;
}

/** Reads an index entry written by encodeIndex. */
export function decodeIndex(buf: Buffer): { seq: number; count: number } {
  return { seq: buf.readDoubleBE(0), count: buf.readUInt32BE(8) };
}
