/**
 * Binary encoding of the processor's state records for checkpoints (races, horses, entity index heads
 * and monthly chunks). Races: Avro (avsc), reusing the RaceCard and
 * RaceResult schemas of schemas/, about a quarter of the size of JSON and several times faster.
 * Internal to the processor: not a topic value, so not registered.
 */
import avro from 'avsc';
import type { HorseRun } from '../../domain/features/horse.js';
import type { ChunkedIndex, ChunkedIndexHead, YearBlock } from '../../state/aggregates/chunked-index.js';
import { EventIndex } from '../../state/aggregates/event-index.js';
import { avroBytes, avroBytesAfter, slabBytes } from '../avro-bytes.js';
import { loadSchemaText } from '../serde.js';

const card = JSON.parse(loadSchemaText('RaceCard')) as avro.Schema;
const result = JSON.parse(loadSchemaText('RaceResult')) as avro.Schema;

const opt = (type: string) => ({ type: ['null', type], default: null });

const runnerLink = {
  type: 'record',
  name: 'RunnerFacts',
  fields: [
    { name: 'horseId', type: 'string' },
    { name: 'jockeyId', type: 'string' },
    { name: 'trainerId', type: 'string' },
    { name: 'ownerId', type: 'string' },
    { name: 'sireId', type: ['null', 'string'] },
    { name: 'damId', type: 'string' },
    { name: 'damSireId', type: 'string' },
    { name: 'draw', type: 'int' },
    { name: 'officialRating', type: 'int' },
    { name: 'weightLbs', type: 'int' },
    { name: 'headgear', type: 'string' },
    { name: 'position', ...opt('int') },
    { name: 'figure', ...opt('double') },
    { name: 'startingPrice', ...opt('double') },
    { name: 'favourite', ...opt('boolean') },
    { name: 'deadHeat', ...opt('int') },
    { name: 'beatenLengths', ...opt('double') },
  ],
};

const links = {
  type: 'record',
  name: 'RaceLinks',
  fields: [
    { name: 'kind', type: 'string' },
    { name: 'off', type: 'long' },
    { name: 'visibleAt', type: 'long' },
    { name: 'courseId', type: 'string' },
    { name: 'discipline', type: 'string' },
    { name: 'surface', type: 'string' },
    { name: 'distanceYards', type: 'int' },
    { name: 'goingGroup', type: 'int' },
    { name: 'raceClass', type: 'int' },
    { name: 'isHandicap', type: 'boolean' },
    { name: 'ran', type: 'int' },
    { name: 'runners', type: { type: 'array', items: runnerLink } },
    {
      name: 'earlier',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'EarlierVersion',
          fields: [
            { name: 'visibleAt', type: 'long' },
            { name: 'until', type: 'long' },
            { name: 'ran', type: 'int' },
            { name: 'runners', type: { type: 'array', items: 'RunnerFacts' } },
          ],
        },
      },
      default: [],
    },
  ],
};

export const RACE_STATE_TYPE = avro.Type.forSchema(
  {
    type: 'record',
    name: 'RaceState',
    namespace: 'racing.internal',
    fields: [
      { name: 'raceId', type: 'string' },
      { name: 'cards', type: { type: 'array', items: card } },
      { name: 'result', type: ['null', result] },
      // the versions of the result it superseded, by publishedAt
      { name: 'earlierResults', type: { type: 'array', items: 'racing.v1.RaceResult' }, default: [] },
      { name: 'links', type: ['null', links] },
      { name: 'emitted', type: { type: 'map', values: 'string' } },
    ],
  } as avro.Schema,
  // undefined optional fields (position/figure/courseId ... absent on pending links) encode as null
  { omitRecordMethods: true },
);

const doubles = { type: 'array', items: 'double' };

/** A horse's runs and pending races. */
export const HORSE_TYPE = avro.Type.forSchema(
  {
    type: 'record',
    name: 'HorseState',
    namespace: 'racing.internal',
    fields: [
      {
        name: 'runs',
        type: {
          type: 'array',
          items: {
            type: 'record',
            name: 'HorseRun',
            fields: [
              { name: 'raceId', type: 'string' },
              { name: 'off', type: 'double' },
              { name: 'visibleAt', type: 'double' },
              { name: 'courseId', type: 'string' },
              { name: 'position', type: 'int' },
              { name: 'figure', type: ['null', 'double'] },
              { name: 'distanceYards', type: 'int' },
              { name: 'officialRating', type: 'int' },
              { name: 'weightLbs', type: 'int' },
              { name: 'raceClass', type: 'int' },
              { name: 'ran', type: 'int' },
              { name: 'beatenLengths', type: ['null', 'double'] },
              { name: 'startingPrice', type: ['null', 'double'] },
              { name: 'favourite', type: 'boolean' },
              { name: 'deadHeat', type: 'int' },
              { name: 'surface', type: 'string' },
              { name: 'discipline', type: 'string' },
              { name: 'goingGroup', type: 'int' },
              { name: 'isHandicap', type: 'boolean' },
              { name: 'headgear', type: 'string' },
              { name: 'jockeyId', type: 'string' },
              { name: 'trainerId', type: 'string' },
              { name: 'ownerId', type: 'string' },
              // the run of a superseded result version: counts at t iff visibleAt < t <= supersededAt
              { name: 'supersededAt', type: ['null', 'double'], default: null },
            ],
          },
        },
      },
      { name: 'pendingRaces', type: { type: 'array', items: 'string' } },
      { name: 'pendingOffs', type: doubles },
    ],
  } as avro.Schema,
  { omitRecordMethods: true },
);

const HORSE_RUN_TYPE = ((HORSE_TYPE as avro.types.RecordType).fields[0]!.type as avro.types.ArrayType).itemsType;
/** HORSE_TYPE's fields after its runs: an Avro record is its fields' bytes end to end. */
const HORSE_PENDING_TYPE = avro.Type.forSchema(
  {
    type: 'record',
    name: 'HorsePending',
    namespace: 'racing.internal',
    fields: [
      { name: 'pendingRaces', type: { type: 'array', items: 'string' } },
      { name: 'pendingOffs', type: doubles },
    ],
  } as avro.Schema,
  { omitRecordMethods: true },
);
const LONG_TYPE = avro.Type.forSchema('long');
/** The Avro bytes of the counts 0..255 (a horse's runs are counted with one of them) */
const SMALL_LONGS = Array.from({ length: 256 }, (_, n) => LONG_TYPE.toBuffer(n));
const ZERO_LONG = SMALL_LONGS[0]!;

/**
 * A horse's runs as last encoded or read: the runs then (the objects themselves: a run is never changed
 * in place, a changed run is a new object) and their Avro bytes end to end, with where each one's end.
 * A horse is written at every checkpoint it changed in, mostly with one run more: its earlier runs' bytes
 * are taken from here, not encoded again.
 *
 * The bytes are held as a latin1 string (one character a byte), on the JavaScript heap: as a typed
 * array each resident horse had a buffer of its own outside the heap, and making one took the longer
 * the more were alive (5 us a horse with 20,000 alive, 10-15 us with 200,000).
 */
export interface EncodedRuns {
  readonly runs: readonly HorseRun[];
  readonly ends: readonly number[];
  readonly bytes: string;
}

/**
 * A horse's state record (HORSE_TYPE's bytes exactly), its runs' bytes taken from `kept` as far as its
 * runs are still the same objects in the same places; returns the record (a view of the shared slab,
 * as avroBytes) and what to keep for the next.
 */
export function encodeHorse(
  runs: readonly HorseRun[],
  pendingRaces: readonly string[],
  pendingOffs: readonly number[],
  kept: EncodedRuns | undefined,
): { value: Buffer; kept: EncodedRuns } {
  let now = kept;
  let same = 0;
  if (kept) {
    const m = Math.min(runs.length, kept.runs.length);
    while (same < m && runs[same] === kept.runs[same]) same++;
  }
  if (!kept || same < runs.length || same < kept.runs.length) {
    const keep = same > 0 ? kept!.ends[same - 1]! : 0;
    const ends = kept ? kept.ends.slice(0, same) : [];
    let bytes = keep > 0 ? kept!.bytes.slice(0, keep) : '';
    for (let i = same; i < runs.length; i++) {
      // (one character a byte: the string's length is the bytes' length)
      bytes += avroBytes(HORSE_RUN_TYPE, runs[i]).toString('latin1');
      ends.push(bytes.length);
    }
    // (the concatenation is made one flat string when the record is written below)
    now = { runs: runs.slice(), ends, bytes };
  }
  // an array is written as one block: its count, the items, then a count of zero (none at all: the zero)
  const parts =
    runs.length > 0
      ? [SMALL_LONGS[runs.length] ?? LONG_TYPE.toBuffer(runs.length), now!.bytes, ZERO_LONG]
      : [ZERO_LONG];
  return { value: avroBytesAfter(parts, HORSE_PENDING_TYPE, { pendingRaces, pendingOffs }), kept: now! };
}

/** A horse's state record read back, with its runs' bytes kept for encodeHorse. */
export function decodeHorse(buf: Buffer): {
  runs: HorseRun[];
  pendingRaces: string[];
  pendingOffs: number[];
  kept: EncodedRuns | undefined;
} {
  const runs: HorseRun[] = [];
  const ends: number[] = [];
  let pos = 0;
  let from = -1;
  let blocks = 0;
  for (;;) {
    const c = LONG_TYPE.decode(buf, pos) as { value: number; offset: number };
    if (c.offset < 0) throw new Error('horse state: truncated runs');
    pos = c.offset;
    if (c.value === 0) break;
    let count = c.value;
    if (count < 0) {
      // a block with its byte size (not written here, but valid Avro)
      count = -count;
      pos = (LONG_TYPE.decode(buf, pos) as { offset: number }).offset;
    }
    if (++blocks === 1) from = pos;
    for (let k = 0; k < count; k++) {
      const r = HORSE_RUN_TYPE.decode(buf, pos) as { value: HorseRun; offset: number };
      if (r.offset < 0) throw new Error('horse state: truncated run');
      runs.push(r.value);
      pos = r.offset;
      ends.push(pos - from);
    }
  }
  const rest = HORSE_PENDING_TYPE.decode(buf, pos) as {
    value: { pendingRaces: string[]; pendingOffs: number[] };
    offset: number;
  };
  if (rest.offset !== buf.length)
    throw new Error(`horse state: ${buf.length} bytes, the record ends at ${rest.offset}`);
  // runs written as one block (as encodeHorse writes them) are kept as read: their bytes as latin1 text
  // (a copy: the record's buffer may be a view of a larger one)
  let kept: EncodedRuns | undefined;
  if (blocks === 0) kept = { runs: [], ends: [], bytes: '' };
  else if (blocks === 1) kept = { runs: runs.slice(), ends, bytes: buf.toString('latin1', from, from + ends.at(-1)!) };
  return { runs, pendingRaces: rest.value.pendingRaces, pendingOffs: rest.value.pendingOffs, kept };
}

/**
 * Doubles are stored as raw bytes in this host's byte order (a Float64Array's own bytes: no per-value
 * encoding). The state format names the byte order (engine-state.ts), so a data dir moved to a host of
 * the other order is replayed rather than misread. They are written through this scratch array, which
 * lives off the heap from the start (viewing the bytes of an on-heap typed array makes V8 move it
 * first); the encoder copies them into the slab, so one array serves every record.
 */
let scratch = new Float64Array(4096);

/** The scratch array, with room for at least n doubles. */
function scratchFor(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/**
 * A stored record's doubles. A store value aligned for doubles (the store hands each value in a buffer
 * of its own) is read in place, a view of its bytes: no second buffer outside the heap for each year
 * block and head read back. Otherwise copied. Either way read-only.
 */
function f64Of(b: Buffer): Float64Array {
  if (b.byteLength % 8 !== 0) throw new Error(`state record: ${b.byteLength} bytes is not a whole number of doubles`);
  if ((b.byteOffset & 7) === 0) return new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8);
  const f = new Float64Array(b.byteLength / 8);
  new Uint8Array(f.buffer).set(b);
  return f;
}

/**
 * A stored record's doubles as a plain array, read through the scratch array (nothing kept outside the
 * heap; the encoders' use of it never spans this call).
 */
function doublesOf(b: Buffer): number[] {
  if (b.byteLength % 8 !== 0) throw new Error(`state record: ${b.byteLength} bytes is not a whole number of doubles`);
  const n = b.byteLength / 8;
  if (n === 0) return [];
  const f = scratchFor(n);
  new Uint8Array(f.buffer, 0, b.byteLength).set(b);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = f[i]!;
  return out;
}

/** An entity index head: the years it has months in (raw doubles), its pending races and its roll-up of old years (raw doubles, empty when none). */
const HEAD_RECORD = avro.Type.forSchema(
  {
    type: 'record',
    name: 'IndexHead',
    namespace: 'racing.internal',
    fields: [
      { name: 'years', type: 'bytes' },
      { name: 'pendingRaces', type: { type: 'array', items: 'string' } },
      { name: 'pendingOffs', type: doubles },
      { name: 'roll', type: 'bytes' },
      // the events of superseded result versions (ChunkedIndex.superseded): keys, then raw doubles
      { name: 'supersededKeys', type: { type: 'array', items: 'string' }, default: [] },
      { name: 'superseded', type: 'bytes', default: '' },
    ],
  } as avro.Schema,
  { omitRecordMethods: true },
);

const NO_KEYS: string[] = [];

export function encodeHead(h: ChunkedIndexHead): Buffer {
  const n = h.years.length;
  const r = h.roll.length;
  const sv = h.superseded ?? [];
  const doubles = scratchFor(n + r + sv.length);
  for (let i = 0; i < n; i++) doubles[i] = h.years[i]!;
  for (let i = 0; i < r; i++) doubles[n + i] = h.roll[i]!;
  for (let i = 0; i < sv.length; i++) doubles[n + r + i] = sv[i]!;
  return avroBytes(HEAD_RECORD, {
    years: Buffer.from(doubles.buffer, 0, n * 8),
    pendingRaces: h.pendingRaces,
    pendingOffs: h.pendingOffs,
    roll: Buffer.from(doubles.buffer, n * 8, r * 8),
    supersededKeys: h.supersededKeys ?? NO_KEYS,
    superseded: Buffer.from(doubles.buffer, (n + r) * 8, sv.length * 8),
  });
}

export function decodeHead(buf: Buffer): ChunkedIndexHead {
  const r = HEAD_RECORD.fromBuffer(buf) as {
    years: Buffer;
    pendingRaces: string[];
    pendingOffs: number[];
    roll: Buffer;
    supersededKeys: string[];
    superseded: Buffer;
  };
  const head: ChunkedIndexHead = {
    years: doublesOf(r.years),
    pendingRaces: r.pendingRaces,
    pendingOffs: r.pendingOffs,
    roll: doublesOf(r.roll),
  };
  if (r.supersededKeys.length > 0) {
    head.supersededKeys = r.supersededKeys;
    head.superseded = doublesOf(r.superseded);
  }
  return head;
}

/**
 * One year's month summaries of an index (ChunkedIndex.yearBlock's layout) as raw doubles, written
 * straight into the shared slab: no typed array and no buffer of its own per block (a checkpoint of a
 * long replay writes hundreds of thousands).
 */
export function encodeYearOf(idx: ChunkedIndex, year: number): Buffer {
  const n = idx.yearBlockLength(year);
  const out = slabBytes(n * 8);
  idx.yearBlockInto(year, new Float64Array(out.buffer, out.byteOffset, n));
  return out;
}

export function decodeYear(buf: Buffer): YearBlock {
  return f64Of(buf);
}

/** One month of an entity's events: the keys and the records of EventIndex.records() as raw doubles. */
const CHUNK_TYPE = avro.Type.forSchema(
  {
    type: 'record',
    name: 'IndexChunk',
    namespace: 'racing.internal',
    fields: [
      { name: 'w', type: 'int' },
      { name: 'k', type: { type: 'array', items: 'string' } },
      { name: 'r', type: 'bytes' },
    ],
  } as avro.Schema,
  { omitRecordMethods: true },
);

/** One month of an entity's events as stored. */
export function encodeChunk(idx: EventIndex): Buffer {
  const n = idx.recordLength;
  const records = scratchFor(n);
  idx.recordsInto(records);
  return avroBytes(CHUNK_TYPE, { w: idx.width, k: idx.keyList, r: Buffer.from(records.buffer, 0, n * 8) });
}

export function decodeChunk(buf: Buffer): EventIndex {
  const c = CHUNK_TYPE.fromBuffer(buf) as { w: number; k: string[]; r: Buffer };
  return EventIndex.fromRecords(c.w, c.k, c.r);
}
