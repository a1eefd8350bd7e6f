/**
 * A batch's direct rows go to the log in slices as they are computed (AnalyticsProcessor.produceDirect):
 * each slice holds at least `directSliceRows` rows and ends between two races, the slices are handed
 * to the log in the order computed without waiting for the one before, and a slice that fails stops the batch before its
 * checkpoint, so a restart produces what was lost. Only where the produces are cut changes: the rows,
 * in order, and the topic at the end are those of a processor that hands each batch over whole.
 * Embedded log and in-memory stores.
 */
import { describe, expect, it } from 'vitest';
import { RacingError } from '../../domain/errors.js';
import { generateFeed } from '../../domain/generator/index.js';
import { silentLogger } from '../../domain/logger.js';
import type { OutRecord } from '../../streams/log-port.js';
import { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { compactedTopic, embeddedWorld, intercept, interceptProduce } from '../support/embedded-world.js';

const logger = silentLogger();
const FEED = { from: '2024-06-01', to: '2024-06-03', seed: 5, scale: 0.3 };
const SLICE = 40;

const raceOf = (key: string) => key.slice(0, key.indexOf(':'));

/**
 * A catch-up of the feed; every produce to the analytics topic recorded (its rows' keys and values).
 * `fail(n)` makes the n-th analytics produce (0-based) fail once as in an outage.
 */
async function catchUp(directSliceRows: number, options: { fail?: number; delayMs?: number } = {}) {
  const { store, log: inner, topics, codecs } = await embeddedWorld(generateFeed(FEED));
  const produces: { key: string; value: string | null }[][] = [];
  let calls = 0;
  let open = 0;
  let overlapped = false;
  const log = interceptProduce(inner, async (topic, records: readonly OutRecord[], produce) => {
    if (topic !== topics.analytics) return produce(topic, records);
    const n = calls++;
    if (n === options.fail)
      throw new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true });
    overlapped ||= open > 0;
    open++;
    try {
      if (options.delayMs) await new Promise<void>((resolve) => setTimeout(resolve, options.delayMs));
      await produce(topic, records);
      produces.push(records.map((r) => ({ key: r.key, value: r.value ? r.value.toString('base64') : null })));
    } finally {
      open--;
    }
  });
  const open_ = () => AnalyticsProcessor.open({ log, codecs, store: store.sub('processor/'), logger, directSliceRows });
  let failed: unknown;
  try {
    await (await open_()).run({ untilCaughtUp: true });
  } catch (e) {
    failed = e;
    // a restart from the checkpoint, as the service's supervisor does
    await (await open_()).run({ untilCaughtUp: true });
  }
  return { produces, overlapped, failed, topic: await compactedTopic(inner, topics.analytics) };
}

describe('direct rows produced in slices', () => {
  it('cuts only between races, after at least the slice size; the rows in order and the topic are as unsliced', async () => {
    const whole = await catchUp(Number.POSITIVE_INFINITY);
    const sliced = await catchUp(SLICE, { delayMs: 2 });
    expect(sliced.failed).toBeUndefined();
    // the same rows, byte for byte, in the same order
    expect(sliced.produces.flat()).toEqual(whole.produces.flat());
    expect(sliced.topic).toEqual(whole.topic);
    expect(sliced.topic.size).toBeGreaterThan(100);
    // a slice is handed to the log without waiting for the one before (the log writes them in call order)
    expect(sliced.overlapped).toBe(true);

    // every cut of the unsliced run is a cut of the sliced one; the new cuts are the slices'
    const cuts = (produces: { key: string }[][]) => {
      const out = new Set<number>();
      let at = 0;
      for (const p of produces.slice(0, -1)) out.add((at += p.length));
      return out;
    };
    const before = cuts(whole.produces);
    const after = cuts(sliced.produces);
    for (const c of before) expect(after.has(c)).toBe(true);
    const rows = sliced.produces.flat();
    let start = 0;
    let added = 0;
    for (const p of sliced.produces) {
      const end = start + p.length;
      if (after.has(end) && !before.has(end)) {
        added++;
        // a slice closed by the size: at least SLICE rows since the previous cut, and not inside a race
        expect(p.length).toBeGreaterThanOrEqual(SLICE);
        expect(raceOf(rows[end - 1]!.key)).not.toBe(raceOf(rows[end]!.key));
        // what passed the slice size is the rest of one race
        expect(new Set(p.slice(SLICE - 1).map((r) => raceOf(r.key))).size).toBe(1);
      }
      start = end;
    }
    // the catch-up's batches did have more direct rows than a slice, else this shows nothing
    expect(added).toBeGreaterThan(2);
  });

  it('a slice that fails stops the batch before its checkpoint: the restart produces every row', async () => {
    const whole = await catchUp(Number.POSITIVE_INFINITY);
    const failing = await catchUp(SLICE, { fail: 1 });
    expect(failing.failed).toBeInstanceOf(RacingError);
    expect((failing.failed as RacingError).code).toBe('broker_unreachable');
    expect(failing.topic).toEqual(whole.topic);
    // the rows after the failed slice were produced by the restart
    const keys = new Set(failing.produces.flat().map((r) => r.key));
    for (const r of whole.produces.flat()) expect(keys.has(r.key)).toBe(true);
  });

  it("a catch-up batch's rows that fail while its checkpoint is encoded leave no part of that checkpoint written", async () => {
    // A full catch-up batch (10,000 records) whose checkpoint is written in slices; its first analytics
    // produce fails once the checkpoint has begun, so the checkpoint's encoding runs while it is pending.
    const feed = () => generateFeed({ from: '2024-06-01', to: '2024-06-24', seed: 5, scale: 4 });
    const { store, log: inner, topics, codecs } = await embeddedWorld(feed());
    let checkpointBegun: () => void = () => undefined;
    const begun = new Promise<void>((resolve) => (checkpointBegun = resolve));
    let failing = true;
    const log = interceptProduce(inner, async (topic, records: readonly OutRecord[], produce) => {
      if (topic !== topics.analytics || !failing) return produce(topic, records);
      failing = false;
      await begun;
      throw new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true });
    });
    const processorStore = store.sub('processor/');
    let batches = 0;
    const watched = intercept(processorStore, 'writeBatch', () => {
      batches++;
      checkpointBegun();
      return processorStore.writeBatch();
    });
    const processor = await AnalyticsProcessor.open({
      log,
      codecs,
      store: watched,
      logger,
      checkpointSliceBytes: 16_384,
    });
    const failed = await processor.run({ untilCaughtUp: true, checkpointIntervalMs: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(RacingError);
    // the checkpoint was begun and cut into slices, and none of them was written: no marker
    expect(batches).toBeGreaterThan(2);
    expect(await processorStore.get('state-incomplete')).toBeUndefined();
    // (that the restart from the checkpoint before produces every row: the test above)
  });
});
