import { describe, expect, it } from 'vitest';
import type { RaceResult } from '../../domain/avro-types.generated.js';
import type { PublishableEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { AnalyticsEngine, type RowOutput } from '../../streams/processors/analytics-engine.js';
import type { Linker } from '../../streams/processors/engine-links.js';
import type { RaceLinks } from '../../streams/processors/engine-state.js';
import { EngineState } from '../../streams/processors/engine-state.js';

/**
 * A batch's races are linked together (Linker.linkMany: each race's horses race by race, its events in
 * the entity indexes one index at a time). The state and every row must be what linking the races one
 * at a time leaves: the engines below take the same feed in the same batches, one linking each batch's
 * races together, the other one race at a time, and flush as the processor does. The feed carries
 * corrected results (superseded versions) and results that leave a declared runner out.
 */

type Out = [key: string, value: string | null, timestamp: number];

const out = (o: RowOutput): Out => [o.key, o.value ? Buffer.from(o.value).toString('base64') : null, o.timestamp];

const DAY = 86_400_000;

/** The generator's feed with corrections: every 9th result has its first two reversed a day and a half later, every 23rd its last starter left out. */
function feedWithCorrections(): PublishableEvent[] {
  const feed = [...generateFeed({ from: '2024-03-01', to: '2024-04-10' })];
  const corrections: PublishableEvent[] = [];
  let n = 0;
  for (const e of feed) {
    if (e.kind !== 'result' || e.value.runners.length < 3) continue;
    n++;
    const v: RaceResult = e.value;
    const publishedAt = v.publishedAt + 1.5 * DAY;
    if (n % 9 === 0) {
      const [a, b, ...rest] = v.runners;
      const runners = [{ ...b!, position: a!.position }, { ...a!, position: b!.position }, ...rest];
      corrections.push({ kind: 'result', value: { ...v, publishedAt, runners }, publishedAt });
    } else if (n % 23 === 0) {
      corrections.push({ kind: 'result', value: { ...v, publishedAt, runners: v.runners.slice(0, -1) }, publishedAt });
    }
  }
  return [...feed, ...corrections].sort((x, y) => x.publishedAt - y.publishedAt);
}

async function replay(
  feed: readonly PublishableEvent[],
  together: boolean,
): Promise<{ outs: Out[][]; state: Map<string, string>; largest: number; earlier: number }> {
  const engine = new AnalyticsEngine(new EngineState());
  const linker = (engine as unknown as { linker: Linker }).linker;
  const linkMany = linker.linkMany.bind(linker);
  let largest = 0;
  let earlier = 0;
  linker.linkMany = (races: readonly (readonly [string, RaceLinks])[]) => {
    largest = Math.max(largest, races.length);
    for (const [, l] of races) if (l.kind === 'ran' && l.earlier.length > 0) earlier++;
    if (together) linkMany(races);
    else for (const r of races) linkMany([r]);
  };
  const outs: Out[][] = [];
  const flush = async (directOnly: boolean): Promise<Out[]> =>
    (await engine.flush(undefined, Number.POSITIVE_INFINITY, { directOnly })).map(out);
  for (let i = 0; i < feed.length; i += 1_500) {
    await engine.applyEvents(feed.slice(i, i + 1_500));
    outs.push(await flush(true));
    outs.push(await flush(false));
  }
  const state = new Map<string, string>();
  engine.state.writeDirty((key, value) => state.set(key, Buffer.from(value).toString('base64')));
  return { outs, state, largest, earlier };
}

describe('races linked together', () => {
  it('leave the state and the rows linking them one at a time leaves, corrections included', async () => {
    const feed = feedWithCorrections();
    const one = await replay(feed, false);
    const together = await replay(feed, true);
    // batches of 1,500 events link hundreds of races at once, some with superseded versions
    expect(together.largest).toBeGreaterThan(300);
    expect(together.earlier).toBeGreaterThan(20);
    expect(one.outs.flat().filter(([, v]) => v !== null).length).toBeGreaterThan(10_000);
    for (let b = 0; b < one.outs.length; b++) expect(together.outs[b], `flush ${b}`).toEqual(one.outs[b]);
    expect(together.state.size).toBeGreaterThan(1_000);
    expect([...together.state.keys()].sort()).toEqual([...one.state.keys()].sort());
    for (const [key, value] of one.state) expect(together.state.get(key), key).toBe(value);
  });
});
