/**
 * The analytics engine alone (no log, no store): generated events applied in feed order, flushed every
 * N events. Prints events, rows, seconds, CPU seconds (user + system, all threads), rows/s and the
 * engine's counters (races recomputed, rows and tombstones emitted).
 *
 *   npm run bench:engine -- --from 2019-01-01 --to 2019-03-31 --batch 2000 [--apply batch|events]
 *
 * `--apply batch` (the default) applies each batch with `applyEvents`, as the processor does (each race
 * changed is linked once per batch); `--apply events` applies the events one by one (`applyCard`,
 * `applyResult`), linking a race again at each of its events.
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
const t0 = performance.now();
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
  if ((i + 1) % batch === 0) rows += (await engine.flush()).length;
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
