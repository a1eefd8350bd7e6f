/**
 * Why the engine assigns a result's fields onto its runner facts and race links rather than spreading
 * them (engine-links.ts, `linksOf` and `ranRunners`): an object literal that spreads a function's fresh
 * result and then adds fields, `{ ...factsOf(r), position, figure, ... }`, against
 * `Object.assign(factsOf(r), { position, figure, ... })`. Prints, per object,
 * the nanoseconds and the bytes allocated (V8's sampling heap profiler, freed objects kept).
 *
 *   node --import tsx bench/spread-literal.bench.ts [--objects 2000000]
 */
import { Session } from 'node:inspector';
import { parseArgs } from 'node:util';
import type { RunnerFacts } from '../domain/features/entity-table.js';

const { values } = parseArgs({ options: { objects: { type: 'string', default: '2000000' } } });
const objects = Number(values.objects);

type Card = Omit<RunnerFacts, 'position' | 'figure' | 'startingPrice' | 'favourite' | 'deadHeat' | 'beatenLengths'>;
interface Res {
  position: number;
  sp: number;
  bl: number;
}

function factsOf(r: Card): Card {
  return {
    horseId: r.horseId,
    jockeyId: r.jockeyId,
    trainerId: r.trainerId,
    ownerId: r.ownerId,
    sireId: r.sireId,
    damId: r.damId,
    damSireId: r.damSireId,
    draw: r.draw,
    officialRating: r.officialRating,
    weightLbs: r.weightLbs,
    headgear: r.headgear,
  };
}

function spread(declared: readonly Card[], res: readonly Res[]): object[] {
  const out: object[] = [];
  for (let i = 0; i < declared.length; i++) {
    const x = res[i]!;
    out.push({
      ...factsOf(declared[i]!),
      position: x.position,
      figure: 1.5 + x.position,
      startingPrice: x.sp,
      favourite: false,
      deadHeat: 1,
      beatenLengths: x.bl,
    });
  }
  return out;
}

/** What the engine does: the result's fields assigned onto the fresh object. */
function assigned(declared: readonly Card[], res: readonly Res[]): object[] {
  const out: object[] = [];
  for (let i = 0; i < declared.length; i++) {
    const x = res[i]!;
    out.push(
      Object.assign(factsOf(declared[i]!), {
        position: x.position,
        figure: 1.5 + x.position,
        startingPrice: x.sp,
        favourite: false,
        deadHeat: 1,
        beatenLengths: x.bl,
      }),
    );
  }
  return out;
}

const declared: Card[] = Array.from({ length: 10 }, (_, i) => ({
  horseId: `hrs_${i}`,
  jockeyId: `jky_${i}`,
  trainerId: 'trn_0',
  ownerId: 'own_0',
  sireId: null,
  damId: 'dam_0',
  damSireId: 'sir_0',
  draw: i + 1,
  officialRating: 70 + i,
  weightLbs: 130,
  headgear: '',
}));
const res: Res[] = declared.map((_, i) => ({ position: i + 1, sp: 2.5 + i, bl: i / 2 }));

const session = new Session();
session.connect();
const post = (method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));

const races = Math.ceil(objects / declared.length);
for (const [name, f] of [
  ['spread, then fields added', spread],
  ['assigned onto it', assigned],
] as const) {
  for (let i = 0; i < 20_000; i++) f(declared, res); // warm up (optimised code)
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const t0 = performance.now();
  for (let i = 0; i < races; i++) f(declared, res);
  const ms = performance.now() - t0;
  const { profile } = (await post('HeapProfiler.stopSampling')) as {
    profile: { head: { selfSize: number; children: unknown[] } };
  };
  let bytes = 0;
  const stack = [profile.head];
  while (stack.length > 0) {
    const n = stack.pop()!;
    bytes += n.selfSize;
    for (const c of n.children) stack.push(c as typeof n);
  }
  const n = races * declared.length;
  console.log(
    JSON.stringify({
      literal: name,
      objects: n,
      nsPerObject: Math.round((ms * 1e6) / n),
      bytesPerObject: Math.round(bytes / n),
    }),
  );
}
