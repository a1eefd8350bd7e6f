/**
 * Where a process allocates: V8's sampling heap profiler, started at load (an `--import` hook) with the
 * objects the collector has since freed kept in the samples, so the profile counts every allocation
 * (what the collector's time is spent on), not only what is still alive at the end. At exit it writes
 * the profile (Chrome DevTools' `.heapprofile` format) and prints the functions that allocated most by
 * their own allocations, in MB and as a share of everything sampled.
 *
 *   RACING_DATA_DIR=<copy> node --import tsx --import ./bench/alloc-sampling.ts dist/cli/racing.js rebuild
 *
 * `ALLOC_PROFILE` names the file (default alloc.heapprofile in the working directory), `ALLOC_TOP` the
 * number of functions printed (default 25), `ALLOC_INTERVAL` the mean bytes between samples (default
 * 65,536). What the sampling itself costs was not measured: compare a run's time without it.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const out = process.env['ALLOC_PROFILE'] ?? 'alloc.heapprofile';
const top = Number(process.env['ALLOC_TOP'] ?? 25);
const interval = Number(process.env['ALLOC_INTERVAL'] ?? 65_536);

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: interval,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});

let done = false;
function finish(): void {
  if (done) return;
  done = true;
  // (the inspector answers synchronously within the same thread, so this works in an exit handler)
  session.post('HeapProfiler.stopSampling', (err, res) => {
    if (err) {
      process.stderr.write(`alloc-sampling: ${err.message}\n`);
      return;
    }
    const profile = res.profile as unknown as { head: ProfileNode };
    writeFileSync(out, JSON.stringify(profile));
    const self = new Map<string, number>();
    let total = 0;
    const stack: ProfileNode[] = [profile.head];
    while (stack.length > 0) {
      const n = stack.pop()!;
      const f = n.callFrame;
      const name = `${f.functionName || '(anonymous)'} ${f.url ? basename(f.url) : ''}:${f.lineNumber + 1}`;
      self.set(name, (self.get(name) ?? 0) + n.selfSize);
      total += n.selfSize;
      for (const c of n.children) stack.push(c);
    }
    const lines = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
    process.stderr.write(`alloc-sampling: ${(total / 1e6).toFixed(0)} MB sampled, profile in ${out}\n`);
    for (const [name, bytes] of lines) {
      process.stderr.write(
        `${((100 * bytes) / total).toFixed(1).padStart(5)}% ${(bytes / 1e6).toFixed(0).padStart(7)} MB  ${name}\n`,
      );
    }
  });
}
process.on('beforeExit', finish);
process.on('exit', finish);
