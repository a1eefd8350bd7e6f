/**
 * What outlives the young generation, by where it was allocated: V8's sampling heap profiler started
 * `SURV_START` seconds into the process (default 40) and read `SURV_WIN` seconds later (default 3),
 * without the objects the collector freed meanwhile. What it reports was allocated in the window and is
 * alive at its end: most of it survived one scavenge or more (a rebuild scavenges every 0.2 s or so),
 * and the collector's cost is in copying these, not in what dies young; the last scavenge interval's
 * allocations are counted whether or not they will survive. Prints the functions that allocated the
 * most of it (MB sampled), then the same with their three callers, and ends the process.
 *
 *   RACING_DATA_DIR=<copy> node --max-semi-space-size=64 --import tsx --import ./bench/survivors.ts dist/cli/racing.js rebuild
 *
 * `SURV_TOP` is the number of lines printed (default 30), `SURV_INTERVAL` the mean bytes between
 * samples (default 16,384). A window falls in one phase of a batch (decoding, linking, the rows, the
 * checkpoint): take several, at different starts, before reading much into one.
 */
import { basename } from 'node:path';
import { Session } from 'node:inspector';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const start = Number(process.env['SURV_START'] ?? 40);
const windowSeconds = Number(process.env['SURV_WIN'] ?? 3);
const top = Number(process.env['SURV_TOP'] ?? 30);
const interval = Number(process.env['SURV_INTERVAL'] ?? 16_384);

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');

function nameOf(n: ProfileNode): string {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url ? basename(f.url) : ''}:${f.lineNumber + 1}`;
}

function report(head: ProfileNode): void {
  const self = new Map<string, number>();
  const withCallers = new Map<string, number>();
  let total = 0;
  const walk = (n: ProfileNode, callers: string[]): void => {
    const name = nameOf(n);
    if (n.selfSize > 0) {
      total += n.selfSize;
      self.set(name, (self.get(name) ?? 0) + n.selfSize);
      const key = [name, ...callers.slice(-3).reverse()].join(' <- ');
      withCallers.set(key, (withCallers.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, [...callers, name]);
  };
  walk(head, []);
  const print = (m: Map<string, number>): void => {
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stderr.write(`${(v / 1e6).toFixed(2).padStart(8)} MB  ${k}\n`);
    }
  };
  process.stderr.write(
    `survivors: ${(total / 1e6).toFixed(1)} MB sampled, allocated from ${start} s for ${windowSeconds} s and alive at the end\n`,
  );
  print(self);
  process.stderr.write('with their callers:\n');
  print(withCallers);
}

setTimeout(() => {
  session.post('HeapProfiler.startSampling', { samplingInterval: interval });
  setTimeout(
    () =>
      session.post('HeapProfiler.stopSampling', (err, res) => {
        if (err) process.stderr.write(`survivors: ${err.message}\n`);
        else report((res.profile as unknown as { head: ProfileNode }).head);
        process.exit(0);
      }),
    windowSeconds * 1000,
  );
}, start * 1000).unref();
