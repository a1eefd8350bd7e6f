/**
 * The read model's change log (state/read-model/change-log.ts) through LevelReadModel.apply, as the view
 * materialiser feeds it: numbering in apply order without gaps, meeting dates, no second change for a
 * batch replayed after a crash, durability across a reopen, retention by count and by age, a new epoch
 * after clear, and subscribers told only once the rows are readable.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { ViewEvent } from '../../domain/events.js';
import { openLevelStore } from '../../state/adapters/level-store.js';
import { type Change, type ChangeSource, changeId, parseChangeId } from '../../state/read-model/change-log.js';
import { LevelReadModel } from '../../state/read-model/level-read-model.js';
import type { StorePort } from '../../state/store-port.js';
import { card, horse, race } from '../support/builders.js';
import { makeRow } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';

type Applied = ViewEvent & { source?: ChangeSource };

const decode = async (b: Buffer) => JSON.parse(b.toString('utf8')) as AnalyticsRow;
const TOPIC = 'racing.analytics.v1';

function rowEvent(r: string, h: string, offset?: number, partition = 0, tombstone = false): Applied {
  const key = `${race(r)}:${horse(h)}`;
  const value = tombstone ? null : Buffer.from(JSON.stringify(makeRow({ raceId: race(r), horseId: horse(h) })));
  return {
    kind: 'row',
    key,
    value,
    ...(offset !== undefined ? { source: { topic: TOPIC, partition, offset } } : {}),
  };
}

const cardEvent = (r: string, off: string): Applied => ({
  kind: 'card',
  value: card({ r, off, runners: [{ h: 'A' }, { h: 'B' }] }),
});

/** A read model whose change log has had a reader (so it keeps changes), as once a stream was opened. */
async function readModel(store: StorePort = memoryStore(), options = {}): Promise<LevelReadModel> {
  const model = new LevelReadModel(store, decode, options);
  await model.changes.retain();
  return model;
}

async function all(model: LevelReadModel): Promise<Change[]> {
  return model.changes.read(0, 1_000_000);
}

describe('change log', () => {
  it('numbers every row change in apply order, from 1 without gaps, with its race date and source', async () => {
    const model = await readModel();
    await model.apply([cardEvent('R1', '2024-05-10T14:00:00.000Z')]);
    await model.apply([rowEvent('R1', 'A', 0, 0), rowEvent('R2', 'A', 0, 1), cardEvent('R2', '2024-05-11T13:00:00Z')]);
    await model.apply([rowEvent('R1', 'B', 1, 0), rowEvent('R1', 'A', 2, 0, true), rowEvent('R9', 'A', 1, 1)]);
    const changes = await all(model);
    expect(changes.map((c) => c.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(changes.map((c) => [c.raceId, c.horseId, c.meetingDate, c.partition, c.offset])).toEqual([
      [race('R1'), horse('A'), '2024-05-10', 0, 0],
      // the card later in the same batch gives the date
      [race('R2'), horse('A'), '2024-05-11', 1, 0],
      [race('R1'), horse('B'), '2024-05-10', 0, 1],
      [race('R1'), horse('A'), '2024-05-10', 0, 2],
      // a race the view has no card for
      [race('R9'), horse('A'), null, 1, 1],
    ]);
    expect(changes[3]!.value).toBeNull();
    expect((await decode(changes[0]!.value!)).horseId).toBe(horse('A'));
    const pos = await model.changes.position();
    expect(pos).toEqual({ epoch: pos.epoch, oldest: 1, head: 5 });
    expect(parseChangeId(changeId(pos.epoch, 5))).toEqual({ epoch: pos.epoch, seq: 5 });
    expect(await model.changes.read(3, 10)).toEqual(changes.slice(3));
    expect(await model.changes.read(1, 2)).toEqual(changes.slice(1, 3));
  });

  it('keeps nothing before its first reader (a rebuild writes only the numbering), everything after it', async () => {
    const model = new LevelReadModel(memoryStore(), decode);
    await model.apply([rowEvent('R1', 'A', 0), rowEvent('R1', 'B', 1)]);
    expect(await model.changes.position()).toMatchObject({ oldest: 3, head: 2 });
    expect(await all(model)).toEqual([]);
    const first = await model.changes.retain();
    expect(first).toMatchObject({ oldest: 3, head: 2 });
    await model.apply([rowEvent('R1', 'C', 2)]);
    expect((await all(model)).map((c) => [c.seq, c.horseId])).toEqual([[3, horse('C')]]);
    // a later reader does not move the point changes are kept from
    expect(await model.changes.retain()).toMatchObject({ oldest: 3, head: 3 });
  });

  it('records nothing twice when a batch is applied again (a replay after a crash before the commit)', async () => {
    const model = await readModel();
    const batch = [rowEvent('R1', 'A', 0), rowEvent('R1', 'B', 1), rowEvent('R1', 'C', 0, 1)];
    await model.apply(batch);
    await model.apply(batch);
    expect((await all(model)).length).toBe(3);
    // partly new: only the records beyond what was recorded get changes
    await model.apply([
      rowEvent('R1', 'B', 1),
      rowEvent('R1', 'D', 2),
      rowEvent('R1', 'C', 0, 1),
      rowEvent('R1', 'E', 1, 1),
    ]);
    expect((await all(model)).map((c) => [c.seq, c.horseId])).toEqual([
      [1, horse('A')],
      [2, horse('B')],
      [3, horse('C')],
      [4, horse('D')],
      [5, horse('E')],
    ]);
    // records applied without a source (not from a topic) are always new changes
    await model.apply([rowEvent('R1', 'A'), rowEvent('R1', 'A')]);
    expect((await model.changes.position()).head).toBe(7);
  });

  it('keeps epoch, numbering and changes across a reopen of the store', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'change-log-'));
    try {
      let store = await openLevelStore(dir);
      let model = await readModel(store.sub('view/'));
      await model.apply([rowEvent('R1', 'A', 0), rowEvent('R1', 'B', 1)]);
      const before = await model.changes.position();
      const changes = await all(model);
      await store.close();
      store = await openLevelStore(dir);
      model = new LevelReadModel(store.sub('view/'), decode);
      expect(await model.changes.position()).toEqual(before);
      expect(await all(model)).toEqual(changes);
      // the replayed batch is recognised after the reopen too; new records continue the numbering
      await model.apply([rowEvent('R1', 'B', 1), rowEvent('R1', 'C', 2)]);
      expect((await all(model)).map((c) => c.seq)).toEqual([1, 2, 3]);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the latest maxChanges (pruning in tenths) and nothing older than maxAgeDays', async () => {
    let now = Date.parse('2024-05-10T12:00:00Z');
    const model = await readModel(memoryStore(), { retention: { maxChanges: 10, maxAgeDays: 1 }, clock: () => now });
    for (let i = 0; i < 30; i++) await model.apply([rowEvent('R1', `H${i}`, i)]);
    let pos = await model.changes.position();
    expect(pos.head).toBe(30);
    expect(pos.oldest).toBeGreaterThanOrEqual(30 - 11 + 1);
    expect(pos.oldest).toBeLessThanOrEqual(30 - 10 + 1);
    const kept = await all(model);
    expect(kept[0]!.seq).toBe(pos.oldest);
    expect(kept.at(-1)!.seq).toBe(30);
    // two days later, one more change: everything older than a day goes
    now += 2 * 86_400_000;
    await model.apply([rowEvent('R1', 'late', 30)]);
    pos = await model.changes.position();
    expect(pos).toMatchObject({ oldest: 31, head: 31 });
    expect((await all(model)).map((c) => c.seq)).toEqual([31]);
  });

  it('clears each prune from the bound of the one before, not from the start of the log', async () => {
    const store = memoryStore();
    const clears: { gte?: string; lt?: string }[] = [];
    const watched: StorePort = Object.create(store) as StorePort;
    watched.clear = (range) => {
      if (range?.lt?.includes('c!')) clears.push({ ...range });
      return store.clear(range);
    };
    const model = await readModel(watched, { retention: { maxChanges: 10, maxAgeDays: 30 } });
    for (let i = 0; i < 60; i++) await model.apply([rowEvent('R1', `H${i}`, i)]);
    expect(clears.length).toBeGreaterThanOrEqual(3);
    // keys below the kept bound are gone, so a prune starts where the one before stopped
    for (let i = 1; i < clears.length; i++) expect(clears[i]!.gte).toBe(clears[i - 1]!.lt);
    const pos = await model.changes.position();
    expect(clears.at(-1)!.lt!.endsWith(String(pos.oldest).padStart(15, '0'))).toBe(true);
    expect((await all(model))[0]!.seq).toBe(pos.oldest);
  });

  it('starts a new epoch, numbered from 1, after the read model is cleared (a rebuild)', async () => {
    const model = await readModel();
    await model.apply([rowEvent('R1', 'A', 0), rowEvent('R1', 'B', 1)]);
    const before = await model.changes.position();
    await model.clear();
    await model.changes.retain();
    // offset 0 was recorded before the clear; the positions went with it, so it is a change of the new log
    await model.apply([rowEvent('R1', 'A', 0)]);
    const after = await model.changes.position();
    expect(after.epoch).not.toBe(before.epoch);
    expect(after).toMatchObject({ oldest: 1, head: 1 });
    expect((await all(model)).map((c) => [c.seq, c.horseId])).toEqual([[1, horse('A')]]);
  });

  it('tells subscribers, in order, once the rows are durable and readable (revision bumped)', async () => {
    const store: StorePort = memoryStore();
    const model = new LevelReadModel(store, decode);
    await model.apply([cardEvent('R1', '2024-05-10T14:00:00.000Z')]);
    const seen: { seqs: number[]; rows: number; revision: number }[] = [];
    const checks: Promise<void>[] = [];
    const stop = model.changes.subscribe((changes) => {
      const revision = model.revision();
      checks.push(
        model.analytics(race('R1')).then((rows) => {
          seen.push({ seqs: changes.map((c) => c.seq), rows: rows!.length, revision });
        }),
      );
    });
    const apply = async (events: Applied[]) => {
      await model.apply(events);
      await Promise.all(checks);
    };
    await apply([rowEvent('R1', 'A', 0)]);
    await apply([rowEvent('R1', 'B', 1), rowEvent('R1', 'A', 2, 0, true)]);
    await apply([cardEvent('R1', '2024-05-10T14:00:00.000Z')]); // no row: nobody is told
    stop();
    await apply([rowEvent('R1', 'C', 3)]);
    expect(seen).toEqual([
      { seqs: [1], rows: 1, revision: 2 },
      { seqs: [2, 3], rows: 1, revision: 3 },
    ]);
  });
});
