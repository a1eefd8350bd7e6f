/**
 * EventIndex: the compact layout against the previous one (OldEventIndex below, kept verbatim for the
 * comparison and as the oracle of test/property/event-index.property.test.ts).
 *
 * Appends N events (in off order, keys `${raceId}:${horseId}` created beforehand, as the caller owns
 * them) spread over a number of indexes, then runs N window queries, and prints ns/op and the memory
 * per event (heapUsed + arrayBuffers after a full GC, before/after building). Each layout runs in its
 * own process. `node --import tsx bench/event-index.bench.ts [--events 5000000] [--indexes 5000] [--width 1]`
 *
 * `--alloc`: what a long replay does to the month chunks instead: makes `--rounds` (6) rounds of 300,000
 * small indexes (one event each, every third of width 38, the others of width 4), all kept alive, and
 * prints the microseconds per index made and the memory after each round. The time per index must not
 * grow with the number alive.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { EventIndex, type EventIndexJson, type WindowCounts } from '../state/aggregates/event-index.js';

/** The EventIndex before the compact layout (number arrays, a Map from key to off, a sorted visibleAt copy). */
export class OldEventIndex {
  readonly width: number;
  private readonly keys: string[] = [];
  private readonly offs: number[] = [];
  private readonly visible: number[] = [];
  private readonly vecs: number[] = [];
  /** cum[(i) * width + d] = sum of dimension d over events [0, i) */
  private cum: number[];
  /** first event index whose cumulative sums are stale */
  private cumValidTo = 0;
  /** visibleAt values sorted ascending (for latestVisible) */
  private readonly visSorted: number[] = [];
  /** max(visibleAt - off) over events: bounds the point-in-time correction scan */
  private maxLag = 0;
  private readonly where = new Map<string, number>();

  constructor(width: number) {
    this.width = width;
    this.cum = new Array<number>(width).fill(0);
  }

  get size(): number {
    return this.keys.length;
  }

  upsert(key: string, off: number, visibleAt: number, vec: readonly number[]): void {
    if (this.where.has(key)) this.remove(key);
    const n = this.keys.length;
    const last = n - 1;
    const i =
      n === 0 || this.offs[last]! < off || (this.offs[last] === off && this.keys[last]! <= key)
        ? n
        : oldUpperBound(this.offs, off, this.keys, key);
    if (i === n) {
      this.keys.push(key);
      this.offs.push(off);
      this.visible.push(visibleAt);
      for (let d = 0; d < this.width; d++) this.vecs.push(vec[d] ?? 0);
    } else {
      this.keys.splice(i, 0, key);
      this.offs.splice(i, 0, off);
      this.visible.splice(i, 0, visibleAt);
      this.vecs.splice(i * this.width, 0, ...vec.slice(0, this.width));
    }
    this.where.set(key, off);
    const vs = this.visSorted;
    if (vs.length === 0 || vs[vs.length - 1]! <= visibleAt) vs.push(visibleAt);
    else vs.splice(oldLowerBoundNum(vs, visibleAt), 0, visibleAt);
    if (visibleAt - off > this.maxLag) this.maxLag = visibleAt - off;
    if (i < this.cumValidTo) this.cumValidTo = i;
  }

  remove(key: string): boolean {
    const off = this.where.get(key);
    if (off === undefined) return false;
    let i = oldLowerBoundNum(this.offs, off);
    while (i < this.keys.length && this.keys[i] !== key) i++;
    const vis = this.visible[i]!;
    this.keys.splice(i, 1);
    this.offs.splice(i, 1);
    this.visible.splice(i, 1);
    this.vecs.splice(i * this.width, this.width);
    this.where.delete(key);
    this.visSorted.splice(oldLowerBoundNum(this.visSorted, vis), 1);
    if (i < this.cumValidTo) this.cumValidTo = i;
    return true;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  window(fromOff: number, t: number): WindowCounts {
    this.ensureCum();
    const w = this.width;
    const lo = oldLowerBoundNum(this.offs, fromOff);
    const hi = oldLowerBoundNum(this.offs, t);
    const sums = new Array<number>(w);
    for (let d = 0; d < w; d++) sums[d] = this.cum[hi * w + d]! - this.cum[lo * w + d]!;
    let n = hi - lo;
    const scanFrom = Math.max(lo, oldLowerBoundNum(this.offs, t - this.maxLag));
    for (let i = scanFrom; i < hi; i++) {
      if (this.visible[i]! >= t) {
        n--;
        for (let d = 0; d < w; d++) sums[d]! -= this.vecs[i * w + d]!;
      }
    }
    const p = oldLowerBoundNum(this.visSorted, t);
    return { n, sums, latestVisible: p > 0 ? this.visSorted[p - 1]! : 0 };
  }

  keysOffAfter(t: number): string[] {
    const out: string[] = [];
    for (let i = oldUpperBoundNum(this.offs, t); i < this.keys.length; i++) out.push(this.keys[i]!);
    return out;
  }

  toJSON(): EventIndexJson {
    return { w: this.width, k: this.keys, o: this.offs, v: this.visible, x: this.vecs };
  }

  static fromJSON(j: EventIndexJson): OldEventIndex {
    const idx = new OldEventIndex(j.w);
    for (let i = 0; i < j.k.length; i++) {
      idx.upsert(j.k[i]!, j.o[i]!, j.v[i]!, j.x.slice(i * j.w, (i + 1) * j.w));
    }
    return idx;
  }

  private ensureCum(): void {
    const n = this.keys.length;
    const w = this.width;
    if (this.cumValidTo === n && this.cum.length === (n + 1) * w) return;
    this.cum.length = (n + 1) * w;
    for (let i = this.cumValidTo; i < n; i++) {
      for (let d = 0; d < w; d++) this.cum[(i + 1) * w + d] = this.cum[i * w + d]! + this.vecs[i * w + d]!;
    }
    this.cumValidTo = n;
  }
}

function oldLowerBoundNum(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function oldUpperBoundNum(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function oldUpperBound(offs: readonly number[], x: number, keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = offs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const o = offs[mid]!;
    if (o < x || (o === x && keys[mid]! <= key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- the benchmark ----

interface Indexish {
  upsert(key: string, off: number, visibleAt: number, vec: readonly number[]): void;
  remove(key: string): boolean;
  window(fromOff: number, t: number): WindowCounts;
}

const BASE = Date.parse('2015-01-01T00:00:00Z');
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** Deterministic xorshift32 in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) for (let i = 0; i < 3; i++) g();
}

function mem(): { heap: number; buffers: number } {
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

function runOne(impl: 'old' | 'new', events: number, indexes: number, width: number): Record<string, number | string> {
  const make = (): Indexish => (impl === 'old' ? new OldEventIndex(width) : new EventIndex(width));
  const rand = rng(42);
  // The caller's data, built before the baseline: keys, offs, visibleAts, vectors.
  const keys = new Array<string>(events);
  const offs = new Float64Array(events);
  const vis = new Float64Array(events);
  const target = new Int32Array(events);
  const vecs: number[][] = [];
  for (let d = 0; d < 16; d++) vecs.push(Array.from({ length: width }, (_, k) => ((d >> k) & 1 ? 1 : 0)));
  const vecOf = new Uint8Array(events);
  for (let i = 0; i < events; i++) {
    // ~130 races a day, 10 runners each; each event goes to one index (a jockey, say).
    const race = Math.floor(i / 10);
    keys[i] = `R${race}:H${(i * 7919) % 100_000}`;
    offs[i] = BASE + Math.floor((race * DAY) / 130);
    const late = rand() < 0.01 ? 3 * DAY : 0; // 1% of results published days late
    vis[i] = offs[i]! + 5 * MIN + Math.floor(rand() * 60) * MIN + late;
    target[i] = Math.floor(rand() * indexes);
    vecOf[i] = Math.floor(rand() * 16);
  }
  // Template literals of 13+ chars are cons strings that hashing flattens (allocating) and GC later
  // shortcuts (freeing): either would be charged to whichever layout runs. JSON.parse makes flat ones.
  const flatKeys = JSON.parse(JSON.stringify(keys)) as string[];
  for (let i = 0; i < events; i++) keys[i] = flatKeys[i]!;
  // For the reconcile benchmark: the newest and the 6th newest event of each index.
  const newest = new Int32Array(indexes).fill(-1);
  const sixth = new Int32Array(indexes).fill(-1);
  const ring: number[][] = Array.from({ length: indexes }, () => []);
  for (let i = 0; i < events; i++) {
    const rg = ring[target[i]!]!;
    rg.push(i);
    if (rg.length > 6) rg.shift();
  }
  ring.forEach((rg, k) => {
    newest[k] = rg[rg.length - 1] ?? -1;
    sixth[k] = rg.length === 6 ? rg[0]! : -1;
  });
  const before = mem();
  const idx: Indexish[] = [];
  for (let k = 0; k < indexes; k++) idx.push(make());

  let t0 = performance.now();
  for (let i = 0; i < events; i++) idx[target[i]!]!.upsert(keys[i]!, offs[i]!, vis[i]!, vecs[vecOf[i]!]!);
  const appendNs = ((performance.now() - t0) * 1e6) / events;
  const after = mem();

  const last = offs[events - 1]!;
  const span = last - BASE;
  let sink = 0;
  t0 = performance.now();
  for (let q = 0; q < events; q++) {
    const t = BASE + rand() * span + DAY;
    const w = idx[q % indexes]!.window(t - 90 * DAY, t);
    sink += w.n + w.latestVisible + w.sums[0]!;
  }
  const windowNs = ((performance.now() - t0) * 1e6) / events;

  // Reconcile: unlink and relink a race's fact in an index: its newest event, and one 5 events back.
  const relink = (which: Int32Array): number => {
    let ops = 0;
    const t1 = performance.now();
    for (let r = 0; r < 20; r++) {
      for (let k = 0; k < indexes; k++) {
        const i = which[k]!;
        if (i < 0) continue;
        const x = idx[k]!;
        x.remove(keys[i]!);
        x.upsert(keys[i]!, offs[i]!, vis[i]!, vecs[vecOf[i]!]!);
        ops++;
      }
    }
    return ((performance.now() - t1) * 1e6) / Math.max(1, ops);
  };
  const relinkNewestNs = relink(newest);
  const relinkSixthNs = relink(sixth);
  const heapPerEvent = (after.heap - before.heap) / events;
  const buffersPerEvent = (after.buffers - before.buffers) / events;
  const result = {
    impl,
    events,
    indexes,
    width,
    appendNsPerOp: +appendNs.toFixed(1),
    windowNsPerOp: +windowNs.toFixed(1),
    removeAndReupsertNewestNsPerOp: +relinkNewestNs.toFixed(1),
    removeAndReupsert6thNewestNsPerOp: +relinkSixthNs.toFixed(1),
    heapUsedBytesPerEvent: +heapPerEvent.toFixed(1),
    arrayBuffersBytesPerEvent: +buffersPerEvent.toFixed(1),
    totalBytesPerEvent: +(heapPerEvent + buffersPerEvent).toFixed(1),
    heapUsedMbBefore: Math.round(before.heap / 1e6),
    heapUsedMbAfter: Math.round(after.heap / 1e6),
    arrayBuffersMbBefore: Math.round(before.buffers / 1e6),
    arrayBuffersMbAfter: Math.round(after.buffers / 1e6),
  };
  if (impl === 'new') {
    for (const x of idx) (x as EventIndex).compact();
    const compacted = mem();
    Object.assign(result, {
      totalBytesPerEventAfterCompact: +(
        (compacted.heap - before.heap + compacted.buffers - before.buffers) /
        events
      ).toFixed(1),
    });
  }
  // Keep the caller's data alive to the end so that freeing it does not count against either layout.
  if (sink === -1) console.log(sink, keys.length, offs[0], vis[0], target[0], vecOf[0], newest[0], sixth[0]);
  return result;
}

/** Rounds of many small indexes kept alive: the time to make one and the memory, per round. */
function runAlloc(rounds: number): void {
  const alive: EventIndex[] = [];
  const vec = new Array<number>(38).fill(1);
  for (let round = 1; round <= rounds; round++) {
    const t0 = performance.now();
    for (let i = 0; i < 300_000; i++) {
      const idx = new EventIndex(i % 3 === 0 ? 38 : 4);
      idx.upsert(`r${round}:${i}`, 1_000 + i, 2_000 + i, vec);
      alive.push(idx);
    }
    const us = ((performance.now() - t0) * 1000) / 300_000;
    const m = process.memoryUsage();
    console.log(
      JSON.stringify({
        round,
        alive: alive.length,
        usPerIndex: +us.toFixed(2),
        rssMb: Math.round(m.rss / 1e6),
        heapUsedMb: Math.round(m.heapUsed / 1e6),
        arrayBuffersMb: Math.round(m.arrayBuffers / 1e6),
      }),
    );
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '5000000' },
      indexes: { type: 'string', default: '5000' },
      width: { type: 'string', default: '1' },
      impl: { type: 'string' },
      alloc: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '6' },
    },
  });
  if (values.alloc) {
    runAlloc(Number(values.rounds));
    process.exit(0);
  }
  const events = Number(values.events);
  const indexes = Number(values.indexes);
  const width = Number(values.width);
  if (values.impl === 'old' || values.impl === 'new') {
    console.log(JSON.stringify(runOne(values.impl, events, indexes, width)));
  } else {
    // One process per layout so neither inherits the other's heap or JIT state.
    const self = fileURLToPath(import.meta.url);
    for (const impl of ['old', 'new']) {
      const out = execFileSync(
        process.execPath,
        [
          ...process.execArgv,
          '--expose-gc',
          '--max-old-space-size=8192',
          self,
          '--impl',
          impl,
          '--events',
          String(events),
          '--indexes',
          String(indexes),
          '--width',
          String(width),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      process.stdout.write(out);
    }
  }
}
