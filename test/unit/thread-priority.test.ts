import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { lowerHelperThreads } from '../../cli/thread-priority.js';

const linux = process.platform === 'linux';

/** The nice value of a thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  // the command name (field 2) is in parentheses and may hold spaces: count from after it
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const ownTid = (): number => Number(readlinkSync('/proc/thread-self').split('/').pop());
const tids = (): number[] => readdirSync('/proc/self/task').map(Number);

/** A worker thread that stays alive until terminated, and its thread id once it runs. */
async function startWorker(): Promise<{ worker: Worker; tid: number }> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
     parentPort.postMessage(tid);
     setInterval(() => {}, 1000);`,
    { eval: true },
  );
  const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { worker, tid };
}

describe.skipIf(!linux)('the event loop thread first (Linux)', () => {
  it('lowers every other thread of the process, including one started later, and not its own', async () => {
    const first = await startWorker();
    const own = ownTid();
    const ownBefore = niceOf(own);
    const h = lowerHelperThreads(11, { intervalMs: 20 });
    let later: { worker: Worker; tid: number } | undefined;
    try {
      expect(niceOf(first.tid)).toBe(11);
      expect(niceOf(own)).toBe(ownBefore);
      // a thread that appears afterwards is lowered at the next look
      later = await startWorker();
      const deadline = Date.now() + 5_000;
      while (niceOf(later.tid) !== 11 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(niceOf(later.tid)).toBe(11);
      // every thread but the caller's (those listed before two more looks; one that ended since is skipped)
      const listed = tids();
      await new Promise((r) => setTimeout(r, 60));
      for (const tid of listed) {
        if (tid === own || !existsSync(`/proc/self/task/${tid}`)) continue;
        expect(niceOf(tid)).toBeGreaterThanOrEqual(11);
      }
      expect(h.lowered).toBeGreaterThanOrEqual(2);
    } finally {
      h.stop();
      await first.worker.terminate();
      await later?.worker.terminate();
    }
  });

  it('leaves every thread as it is with nice 0', async () => {
    const w = await startWorker();
    try {
      const before = niceOf(w.tid);
      const h = lowerHelperThreads(0, { intervalMs: 20 });
      await new Promise((r) => setTimeout(r, 60));
      expect(niceOf(w.tid)).toBe(before);
      expect(h.lowered).toBe(0);
      h.stop();
    } finally {
      await w.worker.terminate();
    }
  });
});
