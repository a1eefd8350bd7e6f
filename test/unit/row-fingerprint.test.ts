/**
 * The fingerprint the engine keeps of each emitted row (and computes for rows read back from the topic at
 * a takeover) must change when any one value changes, and must not depend on how the row was produced:
 * a row decoded from its Avro bytes has the fingerprint of the row computed, and the fingerprint of a
 * row's binary as the topic holds it is the fingerprint of the row.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { generateFeed } from '../../domain/generator/index.js';
import { AnalyticsEngine, rowBytesFingerprint, rowFingerprint } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import avro from 'avsc';
import { loadSchemaText } from '../../streams/serde.js';

async function someRows(): Promise<AnalyticsRow[]> {
  const engine = new AnalyticsEngine(new EngineState());
  for (const e of generateFeed({ from: '2024-03-01', to: '2024-03-03', seed: 3, scale: 0.3 })) {
    if (e.kind === 'card') await engine.applyCard(e.value);
    else if (e.kind === 'result') await engine.applyResult(e.value);
    else await engine.applyCourse(e.value);
  }
  return (await engine.flush()).flatMap((o) => (o.row ? [o.row] : []));
}

describe('row fingerprint', () => {
  it('changes with any one value, tells types and null apart, and survives the Avro round trip', async () => {
    const rows = await someRows();
    expect(rows.length).toBeGreaterThan(50);
    const seen = new Set(rows.map(rowFingerprint));
    expect(seen.size).toBe(rows.length); // distinct rows, distinct fingerprints
    const type = avro.Type.forSchema(JSON.parse(loadSchemaText('AnalyticsRow')) as avro.Schema);
    const row = rows.find((r) => Object.values(r).some((v) => v === null))!;
    const base = rowFingerprint(row);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    let changed = 0;
    let refused = 0;
    for (const [field, value] of Object.entries(row)) {
      const alt: unknown =
        typeof value === 'number'
          ? [value + 1, -value === value ? Number.MIN_VALUE : -value, null]
          : typeof value === 'string'
            ? [`${value}x`, value.slice(1), `${value.slice(0, -1)}${value.endsWith('a') ? 'b' : 'a'}`, null]
            : typeof value === 'boolean'
              ? [!value, null]
              : [0, ''];
      for (const v of (alt as unknown[]).filter((x) => !Object.is(x, value))) {
        const other = { ...row, [field]: v } as AnalyticsRow;
        // a value the schema does not allow (null in a field that has no null) is no row at all
        if (!type.isValid(other)) {
          expect(() => rowFingerprint(other)).toThrow();
          refused++;
          continue;
        }
        const fp = rowFingerprint(other);
        expect(fp, `${field}: ${String(value)} -> ${String(v)}`).not.toBe(base);
        changed++;
      }
    }
    expect(changed).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(0);
    // the order of values is part of it (two fields swapped)
    const numbers = Object.entries(row).filter(([, v]) => typeof v === 'number' && v !== 0);
    const distinct = numbers.filter(([, v], i, all) => all.findIndex(([, w]) => w === v) === i);
    expect(distinct.length).toBeGreaterThan(1);
    const [a, va] = distinct[0]!;
    const [b, vb] = distinct[1]!;
    expect(rowFingerprint({ ...row, [a]: vb, [b]: va } as AnalyticsRow)).not.toBe(base);

    for (const r of rows.slice(0, 40)) {
      const back = type.fromBuffer(type.toBuffer(r)) as AnalyticsRow;
      expect(rowFingerprint(back)).toBe(rowFingerprint(r));
      expect(rowBytesFingerprint(type.toBuffer(r))).toBe(rowFingerprint(r));
    }
  });
});
