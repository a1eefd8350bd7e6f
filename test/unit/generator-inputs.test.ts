/**
 * The catalogue's new inputs in the generated feed (docs/generator.md "New inputs"): well-formed on every
 * card, consistent over a horse's career, and distributed as targeted over two years of data (the
 * first-time headgear rate is read on the second year: in the first, horses made already raced appear
 * without their history).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RaceCard, RaceCardRunner } from '../../domain/avro-types.generated.js';
import { canonicalHeadgear, PATTERNS, SEXES } from '../../domain/codes.js';
import { COURSES, courseIdOf } from '../../domain/courses.js';
import {
  type FeedEvent,
  formatGenerationSummary,
  generateFeed,
  type GenerationSummary,
  generationSummary,
} from '../../domain/generator/index.js';
import { isId } from '../../domain/ids.js';
import { validateCard } from '../../domain/validate.js';

const OPTS = { from: '2023-01-01', to: '2024-12-31', seed: 11, scale: 0.5 };
let feed: FeedEvent[];
let cards: RaceCard[];
let summary: GenerationSummary;

beforeAll(() => {
  feed = [...generateFeed(OPTS)];
  cards = feed.flatMap((e) => (e.kind === 'card' ? [e.value] : []));
  summary = generationSummary(feed);
});

/** The last card of each race, in feed order. */
function finalCards(): RaceCard[] {
  const last = new Map<string, RaceCard>();
  for (const c of cards) last.set(c.raceId, c);
  return [...last.values()];
}

describe('generated new inputs: well-formed', () => {
  it('every card passes validation; sex, headgear, claims, ids and pattern from the code tables, never unknown', () => {
    const bad = new Set<string>();
    for (const c of cards) {
      for (const e of validateCard(c)) bad.add(e.replace(/runners\[\d+\]/, 'runners[i]'));
      if (!(PATTERNS as readonly string[]).includes(c.pattern)) bad.add(`pattern ${JSON.stringify(c.pattern)}`);
      for (const r of c.runners) {
        if (!(SEXES as readonly string[]).includes(r.sex)) bad.add(`sex ${JSON.stringify(r.sex)}`);
        if (canonicalHeadgear(r.headgear) !== r.headgear) bad.add(`headgear ${r.headgear}`);
        if (![0, 3, 5, 7, 10].includes(r.jockeyClaimLbs)) bad.add(`claim ${r.jockeyClaimLbs}`);
        if (!isId('owner', r.ownerId) || r.ownerName === '') bad.add('owner');
        // the pedigree is known or unknown as a whole: a dam (and her sire) exactly when the sire is known
        if ((r.sireId === null) !== (r.damId === '')) bad.add('dam without sire or sire without dam');
        if (r.damId !== '' && (!isId('dam', r.damId) || !isId('sire', r.damSireId) || r.damSireName === ''))
          bad.add('dam ids');
        if (r.damSireId !== '' && r.damSireId === r.sireId) bad.add('dam sire = sire');
      }
    }
    expect([...bad]).toEqual([]);
  });

  it('isHandicap is what the title says (the importer rule holds); black type only at premier courses, top class', () => {
    const grade = new Map(COURSES.map((c) => [courseIdOf(c.code), c.grade]));
    const bad: string[] = [];
    for (const c of finalCards()) {
      if (c.isHandicap !== /handicap/i.test(c.raceName)) bad.push(`${c.raceName}: isHandicap ${c.isHandicap}`);
      const label = /\((Listed|Group [123]|Grade [123])\)$/.exec(c.raceName)?.[1];
      const expected = label === undefined ? 'none' : label === 'Listed' ? 'listed' : `group${label.slice(-1)}`;
      if (c.pattern !== expected) bad.push(`${c.raceName}: pattern ${c.pattern}`);
      if (c.pattern !== 'none' && (grade.get(c.courseId) !== 1 || ![0, 1].includes(c.raceClass)))
        bad.push(`${c.raceName}: black type at grade ${grade.get(c.courseId)}, class ${c.raceClass}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('generated new inputs: a horse over its career', () => {
  it('keeps its dam; its sex only moves forward (c to g or h, f to m); owners change rarely', () => {
    const byHorse = new Map<string, { meetingDate: string; r: RaceCardRunner }[]>();
    for (const c of finalCards()) {
      for (const r of c.runners) {
        const list = byHorse.get(r.horseId) ?? [];
        list.push({ meetingDate: c.meetingDate, r });
        byHorse.set(r.horseId, list);
      }
    }
    const next: Record<string, string[]> = {
      c: ['c', 'g', 'h'],
      g: ['g'],
      h: ['h', 'g'],
      f: ['f', 'm'],
      m: ['m'],
      r: ['r'],
    };
    const bad = new Set<string>();
    let horses = 0;
    let changedOwner = 0;
    for (const runs of byHorse.values()) {
      horses++;
      const owners = new Set(runs.map((x) => x.r.ownerId));
      if (owners.size > 1) changedOwner++;
      if (new Set(runs.map((x) => x.r.damId)).size > 1) bad.add('dam changed');
      for (let i = 1; i < runs.length; i++) {
        const [a, b] = [runs[i - 1]!.r, runs[i]!.r];
        if (!next[a.sex]!.includes(b.sex)) bad.add(`sex ${a.sex} -> ${b.sex}`);
        if ((a.sex === 'c' || a.sex === 'f') && b.age <= 3 && b.sex !== 'g' && b.sex !== a.sex)
          bad.add('grown up early');
      }
    }
    expect([...bad]).toEqual([]);
    expect(changedOwner / horses).toBeGreaterThan(0.01);
    expect(changedOwner / horses).toBeLessThan(0.15);
  });

  it('a dam has at most one foal a year and 1-12 offspring; a dam sire is one sire for all her foals', () => {
    const foals = new Map<string, Map<string, number>>();
    const damSire = new Map<string, string>();
    const bad = new Set<string>();
    for (const c of finalCards()) {
      const year = Number(c.meetingDate.slice(0, 4));
      for (const r of c.runners) {
        if (r.damId === '') continue;
        const m = foals.get(r.damId) ?? new Map<string, number>();
        m.set(r.horseId, year - r.age);
        foals.set(r.damId, m);
        if ((damSire.get(r.damId) ?? r.damSireId) !== r.damSireId) bad.add('dam sire changed');
        damSire.set(r.damId, r.damSireId);
      }
    }
    for (const m of foals.values()) {
      if (m.size > 12) bad.add(`${m.size} offspring`);
      // the generator's age is the meeting year less the foaling year, so this is exact
      if (new Set(m.values()).size < m.size) bad.add('two foals in one year');
    }
    expect([...bad]).toEqual([]);
    expect([...foals.values()].filter((m) => m.size >= 2).length / foals.size).toBeGreaterThan(0.3);
  });
});

describe('generated new inputs: distributions over two years', () => {
  it('sex: most jumpers geldings; on the flat colts and fillies, older entires and mares, a few rigs', () => {
    const { flat, jumps } = summary.inputs.sex;
    expect(jumps['g']).toBeGreaterThan(0.8);
    expect(jumps['g']).toBeLessThan(0.92);
    expect(jumps['m']).toBeGreaterThan(0.07);
    expect((flat['f'] ?? 0) + (flat['m'] ?? 0)).toBeGreaterThan(0.33);
    expect((flat['f'] ?? 0) + (flat['m'] ?? 0)).toBeLessThan(0.47);
    expect(flat['c']).toBeGreaterThan(0.1);
    expect(flat['g']).toBeGreaterThan(0.2);
    expect(flat['h']).toBeGreaterThan(0.03);
    expect(flat['h']).toBeLessThan(0.15);
    expect(flat['r']).toBeGreaterThan(0);
    expect(flat['r']).toBeLessThan(0.01);
    expect(flat['unknown'] ?? 0).toBe(0);
  });

  it('headgear on about 45% of runners, first time on about 4%', () => {
    const h = summary.inputs.headgear;
    expect(h.rate).toBeGreaterThan(0.38);
    expect(h.rate).toBeLessThan(0.55);
    expect(h.firstTimeRateAfterFirstYear).toBeGreaterThan(0.028);
    expect(h.firstTimeRateAfterFirstYear).toBeLessThan(0.055);
    expect(h.top[0]!.headgear).toBe('t'); // tongue strap, then cheekpieces, as in the results files
  });

  it('claims on about 10% of rides, of 3, 5, 7 and (some conditionals) 10 lb', () => {
    const c = summary.inputs.claims;
    // a busy young rider moves the share a point or two at half scale
    expect(c.rate).toBeGreaterThan(0.06);
    expect(c.rate).toBeLessThan(0.16);
    expect(Object.keys(c.byLbs).sort()).toEqual(['10', '3', '5', '7']);
    expect(c.byLbs['10']).toBeLessThan(0.06);
  });

  it('owners: a power law (most own one or two, a few own hundreds); dams with up to 12 offspring', () => {
    const o = summary.inputs.owners;
    expect(o.horsesPerOwner.median).toBeLessThanOrEqual(2);
    expect(o.horsesPerOwner.p90).toBeGreaterThan(o.horsesPerOwner.median);
    expect(o.horsesPerOwner.max).toBeGreaterThan(25 * o.horsesPerOwner.median);
    expect(o.unknownRate).toBe(0);
    const d = summary.inputs.dams;
    expect(d.offspringPerDam.max).toBeLessThanOrEqual(12);
    expect(d.unknownRate).toBeLessThan(0.04);
    expect(d.damSiresAlsoSires / d.distinctDamSires).toBeGreaterThan(0.9);
  });

  it('handicaps: about 55-60% of flat and 50% of jumps races in Britain and Ireland; black type for a few races', () => {
    const { flat, jumps } = summary.inputs.handicapShare;
    expect(flat).toBeGreaterThan(0.5);
    expect(flat).toBeLessThan(0.65);
    expect(jumps).toBeGreaterThan(0.42);
    expect(jumps).toBeLessThan(0.6);
    const p = summary.inputs.patterns;
    expect(p['']).toBeUndefined();
    const blackType = (p['listed'] ?? 0) + (p['group3'] ?? 0) + (p['group2'] ?? 0) + (p['group1'] ?? 0);
    expect(blackType / summary.races).toBeGreaterThan(0.01);
    expect(blackType / summary.races).toBeLessThan(0.07);
    const text = formatGenerationSummary(summary);
    for (const k of ['sex, flat runners', 'headgear:', 'claims:', 'owners:', 'dams:', 'handicaps'])
      expect(text).toContain(k);
  });
});
