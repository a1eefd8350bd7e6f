/**
 * What a V8 CPU profile (`node --cpu-prof`, a `.cpuprofile`) says, as text: the functions by their own
 * time, the time below one function split by what it called, or the time below each of several.
 *
 *   node --import tsx bench/cpu-profile.ts <file.cpuprofile> [--top 40]
 *   node --import tsx bench/cpu-profile.ts <file.cpuprofile> --under computeRowsMany
 *   node --import tsx bench/cpu-profile.ts <file.cpuprofile> --incl "level-read-model.js,readyRowsMany"
 *
 * A frame is named `function file:line` (the line of its definition, 1-based; `(anon)` when it has no
 * name). `--under NAME` takes, in each sample, the outermost frame whose name starts with NAME and counts
 * the sample under the frame it called (`(self)` when the sample is in it). `--incl A,B` counts each sample
 * once for every pattern some frame of its stack contains. The collector's time is its own frame,
 * `(garbage collector)`, outside every function's.
 *
 * For JavaScript functions this is the profile to trust over `perf` with `--perf-basic-prof`: perf's map
 * of JIT code named a function that V8's profile puts at under 1% as 5.2% of the main thread, and missed
 * the 6.3% of the one that had taken its addresses (docs/performance-history.md, the thirty-second
 * session). V8's builtins and native code are perf's to see.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, under: { type: 'string' }, incl: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: cpu-profile.ts <file.cpuprofile> [--top N] [--under NAME] [--incl A,B,...]');
  process.exit(2);
}
const top = Number(values.top);
if (!Number.isInteger(top) || top < 1) {
  console.error(`--top ${JSON.stringify(values.top)}: a whole number >= 1`);
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (id: number): string => {
  const f = byId.get(id)!.callFrame;
  return `${f.functionName || '(anon)'} ${basename(f.url)}:${f.lineNumber + 1}`;
};
/** microseconds per sampled node */
const timeOf = new Map<number, number>();
profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...timeOf.values()].reduce((a, b) => a + b, 0);
/** the stack of a sampled node, outermost first */
const stackOf = (id: number): number[] => {
  const out: number[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) out.push(at);
  return out.reverse();
};

const line = (us: number, of: number, label: string): string =>
  `${((100 * us) / of).toFixed(2).padStart(6)}% ${(us / 1e6).toFixed(2).padStart(8)} s  ${label}`;
const print = (counts: Map<string, number>, of: number): void => {
  for (const [label, us] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(us, of, label));
};
const add = (m: Map<string, number>, k: string, us: number): void => {
  m.set(k, (m.get(k) ?? 0) + us);
};

console.log(`${basename(file)}: ${(total / 1e6).toFixed(2)} s sampled`);
if (values.under !== undefined) {
  const under = values.under;
  const below = new Map<string, number>();
  let inside = 0;
  for (const [id, us] of timeOf) {
    const stack = stackOf(id);
    const d = stack.findIndex((n) => name(n).startsWith(under));
    if (d < 0) continue;
    inside += us;
    add(below, d + 1 < stack.length ? name(stack[d + 1]!) : '(self)', us);
  }
  console.log(line(inside, total, `below ${under}, split by what it called (shares of that time):`));
  print(below, inside || 1);
} else if (values.incl !== undefined) {
  const patterns = values.incl.split(',').filter((p) => p !== '');
  const incl = new Map<string, number>(patterns.map((p) => [p, 0]));
  for (const [id, us] of timeOf) {
    const names = stackOf(id).map(name);
    for (const p of patterns) if (names.some((n) => n.includes(p))) add(incl, p, us);
  }
  for (const p of patterns) console.log(line(incl.get(p)!, total, `including what it called: ${p}`));
} else {
  const self = new Map<string, number>();
  for (const [id, us] of timeOf) add(self, name(id), us);
  print(self, total);
}
