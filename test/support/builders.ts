/** Hand-built cards and results for feature tests: short names become well-formed ids. */
import type { RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { makeId } from '../../domain/ids.js';

export const race = (n: string) => makeId('race', `t:${n}`);
export const horse = (n: string) => makeId('horse', `t:${n}`);
export const jockey = (n: string) => makeId('jockey', `t:${n}`);
export const trainer = (n: string) => makeId('trainer', `t:${n}`);
export const sire = (n: string) => makeId('sire', `t:${n}`);
export const course = (n: string) => makeId('course', `t:${n}`);
export const owner = (n: string) => makeId('owner', `t:${n}`);
export const dam = (n: string) => makeId('dam', `t:${n}`);

export const at = (iso: string): number => Date.parse(iso);

export interface RunnerSpec {
  h: string;
  j?: string;
  t?: string;
  s?: string | null;
  draw?: number;
  w?: number;
  or?: number;
  nr?: boolean;
  /** catalogue inputs (unknown when absent): owner, dam and dam sire names, sex, headgear, claim, age */
  o?: string;
  d?: string;
  ds?: string;
  sex?: string;
  hg?: string;
  claim?: number;
  age?: number;
}

export interface CardSpec {
  r: string;
  off: string;
  pub?: string;
  v?: number;
  c?: string;
  discipline?: string;
  surface?: string;
  dist?: number;
  going?: string;
  cls?: number;
  hcap?: boolean;
  pattern?: string;
  runners: RunnerSpec[];
}

export function card(s: CardSpec): RaceCard {
  const off = at(s.off);
  return {
    raceId: race(s.r),
    version: s.v ?? 1,
    publishedAt: s.pub ? at(s.pub) : off - 86_400_000,
    offTime: off,
    meetingDate: s.off.slice(0, 10),
    courseId: course(s.c ?? 'C1'),
    courseName: s.c ?? 'C1',
    country: 'GB',
    raceName: `Race ${s.r}`,
    discipline: s.discipline ?? 'flat',
    surface: s.surface ?? 'turf',
    distanceYards: s.dist ?? 2200,
    going: s.going ?? 'Good',
    raceClass: s.cls ?? 4,
    isHandicap: s.hcap ?? false,
    pattern: s.pattern ?? '',
    runners: s.runners.map((r, i) => ({
      horseId: horse(r.h),
      horseName: r.h,
      age: r.age ?? 4,
      sireId: r.s === null ? null : sire(r.s ?? `S-${r.h}`),
      sireName: r.s === null ? null : (r.s ?? `S-${r.h}`),
      jockeyId: jockey(r.j ?? `J-${r.h}`),
      jockeyName: r.j ?? `J-${r.h}`,
      trainerId: trainer(r.t ?? `T-${r.h}`),
      trainerName: r.t ?? `T-${r.h}`,
      saddleCloth: i + 1,
      draw: r.draw ?? 0,
      weightLbs: r.w ?? 140,
      officialRating: r.or ?? 0,
      nonRunner: r.nr ?? false,
      sex: r.sex ?? '',
      headgear: r.hg ?? '',
      jockeyClaimLbs: r.claim ?? 0,
      ownerId: r.o ? owner(r.o) : '',
      ownerName: r.o ?? '',
      damId: r.d ? dam(r.d) : '',
      damName: r.d ?? '',
      damSireId: r.ds ? sire(r.ds) : '',
      damSireName: r.ds ?? '',
    })),
  };
}

export interface ResultRunnerSpec {
  h: string;
  pos: number;
  bl?: number;
  fav?: boolean;
  sp?: number;
  status?: string;
}

export function result(s: { r: string; pub: string; runners: ResultRunnerSpec[] }): RaceResult {
  return {
    raceId: race(s.r),
    publishedAt: at(s.pub),
    winningTimeSeconds: 120,
    runners: s.runners.map((x) => ({
      horseId: horse(x.h),
      position: x.pos,
      status: x.status ?? (x.pos === 0 ? 'pulled-up' : 'finished'),
      beatenLengths: x.bl ?? 0,
      startingPrice: x.sp ?? null,
      favourite: x.fav ?? false,
    })),
  };
}
