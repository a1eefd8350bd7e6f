import { describe, expect, it } from 'vitest';
import type { AnalyticsRow, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { AnalyticsEngine, type RowOutput } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import type { StorePort } from '../../state/store-port.js';
import { card, horse, result } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';

/**
 * The months a batch of rows needs in detail (the month each window starts in, the months a last-win
 * walk steps back through) are read for the whole batch in multi-gets (EngineResidency.readyRowsMany),
 * not with one store read per month per row. The rows are those of an engine that never left memory.
 */

/** A store that counts the month chunks (`k!` keys) read one at a time and in multi-gets. */
function countingStore(inner: StorePort): StorePort & { single: number; many: number } {
  const out = {
    ...inner,
    single: 0,
    many: 0,
    async get(key: string) {
      if (key.startsWith('k!')) out.single++;
      return inner.get(key);
    },
    async getMany(keys: readonly string[]) {
      for (const k of keys) if (k.startsWith('k!')) out.many++;
      return inner.getMany(keys);
    },
  };
  return out;
}

/** Two years of monthly races for jockeys J1 and J2 (J1 wins the even months), then their results. */
type Input = { card: RaceCard } | { result: RaceResult };

function history(): Input[] {
  const events: Input[] = [];
  for (let m = 0; m < 24; m++) {
    const month = `${2022 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
    const r = `H${m}`;
    events.push(
      {
        card: card({
          r,
          off: `${month}-20T14:00:00Z`,
          pub: `${month}-19T10:00:00Z`,
          runners: [
            { h: `A${m}`, j: 'J1', o: 'O1' },
            { h: `B${m}`, j: 'J2', o: 'O2' },
          ],
        }),
      },
      {
        result: result({
          r,
          pub: `${month}-20T14:10:00Z`,
          runners: [
            { h: `A${m}`, pos: m % 2 === 0 ? 1 : 2 },
            { h: `B${m}`, pos: m % 2 === 0 ? 2 : 1 },
          ],
        }),
      },
    );
  }
  return events;
}

/** Two races half a year after the history: their 365-day windows start in June and July 2023. */
const today: Input[] = [
  {
    card: card({
      r: 'T1',
      off: '2024-06-15T14:00:00Z',
      pub: '2024-06-14T10:00:00Z',
      runners: [{ h: 'X', j: 'J1', o: 'O1' }],
    }),
  },
  {
    card: card({
      r: 'T2',
      off: '2024-07-25T14:00:00Z',
      pub: '2024-07-24T10:00:00Z',
      runners: [{ h: 'Y', j: 'J2', o: 'O2' }],
    }),
  },
];

async function apply(engine: AnalyticsEngine, events: readonly Input[]): Promise<AnalyticsRow[]> {
  for (const e of events) {
    if ('card' in e) await engine.applyCard(e.card);
    else await engine.applyResult(e.result);
  }
  const out = await engine.flush();
  return out.map((o: RowOutput) => o.row).filter((r): r is AnalyticsRow => r !== null);
}

describe('rows read the months they need in multi-gets', () => {
  it('computes the same rows from months read back from the store, with no single month read', async () => {
    const reference = new AnalyticsEngine(new EngineState());
    await apply(reference, history());
    const expected = await apply(reference, today);

    const inner = memoryStore();
    const writer = new AnalyticsEngine(new EngineState(inner));
    await apply(writer, history());
    await inner.batch(writer.state.takeDirty());

    // a fresh state: every index comes back with its summaries only, every month absent
    const store = countingStore(inner);
    const engine = new AnalyticsEngine(await EngineState.open(store));
    const rows = await apply(engine, today);

    expect(rows.map((r) => [r.raceId, r.horseId])).toEqual(expected.map((r) => [r.raceId, r.horseId]));
    expect(rows).toEqual(expected);
    // the window-start months (June and July 2023) and the last winner's month were needed in detail
    expect(rows.find((r) => r.horseId === horse('X'))!.jockeyDaysSinceLastWinner).toBeGreaterThan(0);
    expect(store.many).toBeGreaterThan(0);
    expect(store.single).toBe(0);
  });
});
