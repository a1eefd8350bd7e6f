/**
 * What a row's fingerprint costs (analytics-engine.ts, `rowFingerprint`: the engine takes one of every
 * row it computes to tell whether to emit it). Since state format 13 it is a hash over the row's Avro
 * binary, which the engine makes anyway (the processor produces those bytes); before, a hash over every
 * value of the row object. Three forms: the hash over the values (the form before), the Avro encoding
 * alone, and the encoding with the hash over its bytes. Rows are AnalyticsRow values from the schema's
 * random generator, as object literals (the engine's rows) and as Avro records read back (a row read from
 * the topic). Prints the nanoseconds a row per form, the median of the rounds, and checks that each hash
 * gives the same fingerprint for a row in either form.
 *
 *   node --import tsx bench/row-fingerprint.bench.ts [--rows 2000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import avro from 'avsc';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import { fmix32, hex8, murmurRound } from '../domain/hash.js';
import { rowFingerprint } from '../streams/processors/analytics-engine.js';
import { encodeRow } from '../streams/processors/engine-rows.js';
import { loadSchemaText } from '../streams/serde.js';
import { median } from './median.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' } },
});
const n = Number(values.rows);
const rounds = Number(values.rounds);

const type = avro.Type.forSchema(JSON.parse(loadSchemaText('AnalyticsRow')) as avro.Schema);
const records = Array.from({ length: n }, () => type.fromBuffer(type.toBuffer(type.random())) as AnalyticsRow);
// as the engine makes its rows: an object literal with every field in schema order (a fast-mode object)
const names = (JSON.parse(loadSchemaText('AnalyticsRow')) as { fields: { name: string }[] }).fields.map((f) => f.name);
const literal = new Function(
  's',
  `return {${names.map((f) => `${JSON.stringify(f)}: s[${JSON.stringify(f)}]`).join(', ')}};`,
) as (s: AnalyticsRow) => AnalyticsRow;
const plain = records.map(literal);

/** The fingerprint with the lanes mixed by a closure (the form before). */
function closureForm(r: AnalyticsRow): string {
  let h1 = 0x9747b28c;
  let h2 = 0x5bd1e995;
  const mix = (w: number): void => {
    h1 = murmurRound(h1, w);
    h2 = murmurRound(h2, w ^ 0x85ebca6b);
  };
  for (const v of Object.values(r)) {
    if (typeof v === 'number') {
      F64[0] = v;
      mix(1);
      mix(U32[0]!);
      mix(U32[1]!);
    } else if (typeof v === 'string') {
      mix(2);
      mix(v.length);
      for (let i = 0; i < v.length; i++) mix(v.charCodeAt(i));
    } else if (typeof v === 'boolean') {
      mix(v ? 3 : 4);
    } else {
      mix(5);
    }
  }
  return hex8(fmix32(h1)) + hex8(fmix32(h2));
}

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

for (let i = 0; i < n; i++) {
  if (closureForm(plain[i]!) !== closureForm(records[i]!)) throw new Error(`row ${i}: the hash over values differs`);
  if (rowFingerprint(plain[i]!) !== rowFingerprint(records[i]!))
    throw new Error(`row ${i}: the hash over bytes differs`);
}

/** The Avro encoding alone, which the engine does for every row it computes whatever its fingerprint. */
function encodeOnly(r: AnalyticsRow): string {
  return encodeRow(r).length > 0 ? 'x' : '';
}

function nsPerRow(f: (r: AnalyticsRow) => string, rows: readonly AnalyticsRow[]): number {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let k = 0; k < 20; k++) for (const r of rows) sink += f(r).length;
  const ns = Number(process.hrtime.bigint() - t0) / (20 * rows.length);
  if (sink === 0) throw new Error('nothing hashed');
  return ns;
}

const forms: [string, (r: AnalyticsRow) => string][] = [
  ['over the values, by a closure (before 2026-11-29)', closureForm],
  ['the Avro encoding alone', encodeOnly],
  ['encoded, then over the bytes (rowFingerprint)', rowFingerprint],
];
const figures: Record<string, number> = {};
for (const [rowsName, rows] of [
  ['literal', plain],
  ['avro', records],
] as const) {
  for (const [name, f] of forms) {
    const ns: number[] = [];
    for (let k = 0; k < rounds; k++) ns.push(nsPerRow(f, rows));
    figures[`${rowsName} rows, ${name}`] = Math.round(median(ns));
  }
}
console.log(JSON.stringify({ rows: n, rounds, nsPerRowMedian: figures }));
