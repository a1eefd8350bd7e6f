/**
 * The figures `racing process` and `racing rebuild` print: where the processor's time went, by phase
 * (docs/performance.md reads them), beside the garbage collector's pauses, the view's catch-up after it,
 * and what the processor's checkpoints wrote of its state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceConfigFromEnv } from '../../cli/config.js';
import { generate, processAll } from '../../cli/commands/pipeline.js';
import { openRuntime } from '../../cli/runtime.js';
import { silentLogger } from '../../domain/logger.js';
import { PHASES } from '../../streams/processors/analytics-processor.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the processing figures', () => {
  it('count each phase of the batches and checkpoints, and together no more than the run took', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'racing-figures-'));
    dirs.push(dir);
    // a checkpoint after every batch, so the checkpoint's phases are counted too
    const env = { LOG_LEVEL: 'silent', RACING_DATA_DIR: dir, RACING_CATCHUP_CHECKPOINT_MS: '10' };
    const rt = await openRuntime(serviceConfigFromEnv(env), silentLogger());
    try {
      await generate(rt, { from: '2024-05-01', to: '2024-05-06', seed: 5 });
      const started = performance.now();
      const figures = await processAll(rt);
      const wallMs = performance.now() - started;

      // the view's catch-up after the processor's is counted apart
      expect(figures.viewSeconds).toBeGreaterThan(0);
      expect((figures.seconds + figures.viewSeconds) * 1000).toBeLessThanOrEqual(wallMs);
      const ms = figures.processor.stats.phaseMs;

      expect(Object.keys(ms).sort()).toEqual([...PHASES].sort());
      // every phase ran in a run that computed rows and wrote checkpoints
      for (const p of PHASES) expect(ms[p], p).toBeGreaterThan(0);
      // the phases are spans of one thread that never overlap: their sum fits in the run
      const sum = PHASES.reduce((a, p) => a + ms[p], 0);
      expect(sum).toBeLessThanOrEqual(wallMs);
      expect(sum).toBeGreaterThan(0.5 * figures.seconds * 1000);

      // the printed figures: the same phases in seconds (tenths), and the collector's pauses
      expect(Object.keys(figures.phaseSeconds).sort()).toEqual([...PHASES, 'gcMajor', 'gcMinor', 'gcOther'].sort());
      for (const p of PHASES) expect(figures.phaseSeconds[p]).toBe(Math.round(ms[p] / 100) / 10);
      expect(figures.phaseSeconds['gcMinor']).toBeGreaterThanOrEqual(0);

      // the checkpoints (one after every batch here) and what they wrote, in megabytes (tenths)
      expect(figures.checkpoints.count).toBe(figures.processor.stats.checkpoints);
      expect(figures.checkpoints.count).toBeGreaterThanOrEqual(figures.processor.stats.batches);
      const written = figures.processor.stateWritten;
      expect(Object.keys(figures.checkpoints.written).sort()).toEqual(Object.keys(written).sort());
      for (const [kind, w] of Object.entries(written)) {
        expect(figures.checkpoints.written[kind]).toEqual({ records: w.records, mb: Math.round(w.bytes / 1e5) / 10 });
      }
      // every race of the run was written at least once
      expect(written.races.records).toBeGreaterThanOrEqual(figures.races);
    } finally {
      await rt.close();
    }
  }, 120_000);
});
