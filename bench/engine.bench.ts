/**
 * The analytics engine alone (no log, no store): generated events applied in feed order, flushed every
 * N events. Prints events, rows, seconds, CPU seconds (user + system, all threads), rows/s and the
 * engine's counters (races recomputed, rows and tombstones emitted).
 *
 *   npm run bench:engine -- --from 2019-01-01 --to 2019-03-31 --batch 2000 [--apply batch|events] [--by-year]
 *
 * `--apply batch` (the default) applies each batch with `applyEvents`, as the processor does (each race
 * changed is linked once per batch); `--apply events` applies the events one by one (`applyCard`,
 * `applyResult`), linking a race again at each of its events.
 *
 * `--by-year` also prints a line as each year's first flush is done: the rows and seconds so far, and the
 * microseconds a row since the line before, with the V8 heap in use: how the per-row cost moves as the
 * history grows. Everything stays in memory (nothing is evicted, as no store is behind the engine), so
 * on a long history the heap grows by about 1.5 GB a year and the collector's share with it (give
 * `--max-old-space-size`).
 *
 * Runs the compiled engine from dist/ (the npm script builds it), as the service runs it; --source runs
 * the TypeScript sources through tsx.
 */
import { parseArgs } from 'node:util';
import type * as GeneratorModule from '../domain/generator/index.js';
import type * as EngineModule from '../streams/processors/analytics-engine.js';
import type * as StateModule from '../streams/processors/engine-state.js';
import { serviceModules } from './service-modules.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '2023-01-01' },
    to: { type: 'string', default: '2023-12-31' },
    batch: { type: 'string', default: '20000' },
    apply: { type: 'string', default: 'batch' },
    source: { type: 'boolean', default: false },
    'by-year': { type: 'boolean', default: false },
  },
});
const load = serviceModules(values.source);
const { generateFeed } = await load<typeof GeneratorModule>('domain/generator/index.js');
const { AnalyticsEngine } = await load<typeof EngineModule>('streams/processors/analytics-engine.js');
const { EngineState } = await load<typeof StateModule>('streams/processors/engine-state.js');
const events = [...generateFeed({ from: values.from!, to: values.to! })];
const batch = Number(values.batch);
const engine = new AnalyticsEngine(new EngineState());
let rows = 0;
let year = '';
let lineRows = 0;
let lineAt = 0;
/** `--by-year`: a line when the events applied reach a new year (by the last event's off or publication). */
function yearLine(last: (typeof events)[number]): void {
  const y = new Date(last.kind === 'card' ? last.value.offTime : last.value.publishedAt).toISOString().slice(0, 4);
  if (y === year) return;
  year = y;
  const now = performance.now();
  const us = rows > lineRows ? ((now - lineAt) * 1000) / (rows - lineRows) : 0;
  console.log(
    JSON.stringify({
      year: y,
      rows,
      seconds: +((now - t0) / 1000).toFixed(1),
      usPerRowSinceLast: Math.round(us),
      heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1e6),
    }),
  );
  lineRows = rows;
  lineAt = now;
}
const t0 = performance.now();
lineAt = t0;
const cpu0 = process.cpuUsage();
if (values.apply !== 'batch' && values.apply !== 'events') throw new Error('--apply is batch or events');
for (let i = 0; i < events.length; i++) {
  if (values.apply === 'batch') {
    if (i % batch === 0) await engine.applyEvents(events.slice(i, i + batch));
  } else {
    const e = events[i]!;
    if (e.kind === 'card') await engine.applyCard(e.value);
    else if (e.kind === 'result') await engine.applyResult(e.value);
    else await engine.applyCourse(e.value);
  }
  if ((i + 1) % batch === 0) {
    rows += (await engine.flush()).length;
    if (values['by-year']) yearLine(events[i]!);
  }
}
rows += (await engine.flush()).length;
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const t1 = performance.now();
const ops = engine.state.takeDirty();
const ckpt = (performance.now() - t1) / 1000;
console.log(
  JSON.stringify({
    apply: values.apply,
    events: events.length,
    rows,
    seconds: +secs.toFixed(2),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    rowsPerSecond: Math.round(rows / secs),
    checkpointOps: ops.length,
    checkpointSeconds: +ckpt.toFixed(2),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    counters: engine.counters,
  }),
);
