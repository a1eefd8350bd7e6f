/**
 * The analytics engine alone (no log, no store): generated events applied in feed order, flushed every
 * N events. Prints events, rows, seconds and rows/s. `node --import tsx bench/engine.bench.ts --from 2023-01-01 --to 2023-12-31`
 */
import { parseArgs } from 'node:util';
import { generateFeed } from '../domain/generator/index.js';
import { AnalyticsEngine } from '../streams/processors/analytics-engine.js';
import { EngineState } from '../streams/processors/engine-state.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: '2023-01-01' },
    to: { type: 'string', default: '2023-12-31' },
    batch: { type: 'string', default: '20000' },
  },
});
const events = [...generateFeed({ from: values.from!, to: values.to! })];
const batch = Number(values.batch);
const engine = new AnalyticsEngine(new EngineState());
let rows = 0;
const t0 = performance.now();
for (let i = 0; i < events.length; i++) {
  const e = events[i]!;
  if (e.kind === 'card') await engine.applyCard(e.value);
  else if (e.kind === 'result') await engine.applyResult(e.value);
  else await engine.applyCourse(e.value);
  if ((i + 1) % batch === 0) rows += (await engine.flush()).length;
}
rows += (await engine.flush()).length;
const secs = (performance.now() - t0) / 1000;
const t1 = performance.now();
const ops = engine.state.takeDirty();
const ckpt = (performance.now() - t1) / 1000;
console.log(
  JSON.stringify({
    events: events.length,
    rows,
    seconds: +secs.toFixed(2),
    rowsPerSecond: Math.round(rows / secs),
    checkpointOps: ops.length,
    checkpointSeconds: +ckpt.toFixed(2),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
  }),
);
