/**
 * What a row's fingerprint costs (analytics-engine.ts, `rowFingerprint`: the engine takes one of every
 * row it computes to tell whether to emit it) against the same hash with its two lanes mixed through a
 * closure over them, as it was written before. Rows are AnalyticsRow values from the schema's random
 * generator, as object literals (the engine's rows) and as Avro records read back (a row read from the
 * topic). Prints the nanoseconds a row per form, the median of five rounds, and checks that both forms
 * give the same fingerprint.
 *
 *   node --import tsx bench/row-fingerprint.bench.ts [--rows 2000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import avro from 'avsc';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import { fmix32, hex8, murmurRound } from '../domain/hash.js';
import { rowFingerprint } from '../streams/processors/analytics-engine.js';
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
  const want = closureForm(plain[i]!);
  if (rowFingerprint(plain[i]!) !== want || rowFingerprint(records[i]!) !== want || closureForm(records[i]!) !== want)
    throw new Error(`row ${i}: the two forms disagree`);
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
  ['closure (before)', closureForm],
  ['lanes written out (rowFingerprint)', rowFingerprint],
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
