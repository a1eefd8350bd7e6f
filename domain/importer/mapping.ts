/**
 * Field-level rules that turn the results files' values into the service's vocabulary: names, country
 * and region from the course name, discipline, surface, class, status, favourite. Pure functions, so
 * each rule is tested on its own (docs/importer.md lists them).
 */
import type { Discipline, Pattern, Sex, Surface } from '../codes.js';

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

/** Decodes HTML character references (`&amp;`, `&#39;`, `&#x27;`, ...); unknown names are left as written. */
export function decodeHtmlEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (whole, body: string) => {
    if (body.charCodeAt(0) === 35 /* # */) {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}

const RIGHT_ARTIFACT = ' right';

/**
 * A horse, jockey or trainer name as published: HTML entities decoded and the scraper's trailing
 * lower-case " right" removed once (2026 files). Case-sensitive on purpose: real names such as
 * "Aye Right" or "Royal Right" end in a capitalised word and are kept.
 */
export function cleanPersonOrHorseName(raw: string): string {
  let s = decodeHtmlEntities(raw.trim());
  if (s.endsWith(RIGHT_ARTIFACT)) s = s.slice(0, -RIGHT_ARTIFACT.length).trimEnd();
  return s;
}

/** A race, course or sire name: entities decoded, otherwise as written (trimmed). */
export function cleanName(raw: string): string {
  return decodeHtmlEntities(raw.trim());
}

export type Region = 'GB' | 'IRE' | 'INT';

export interface CourseIdentity {
  /** GB, IRE, GB-ARAB, or the suffix code of a foreign course (FR, USA, UAE-ARAB, ...) */
  country: string;
  region: Region;
  /** 'AW', 'July' or null */
  trackVariant: string | null;
}

/** The parenthesised suffixes at the end of a course name, in order: `Dundalk (AW) (IRE)` -> [AW, IRE]. */
export function courseSuffixes(courseName: string): string[] {
  const out: string[] = [];
  let s = courseName.trim();
  for (;;) {
    const m = /\s*\(([^()]*)\)$/.exec(s);
    if (!m) break;
    out.unshift(m[1]!.trim());
    s = s.slice(0, m.index);
  }
  return out;
}

/**
 * Country, region and track variant from the course name (SOURCE.md): `(IRE)` -> IRE; no suffix, `(AW)`
 * or `(July)` -> GB; `(GB) (ARAB)` -> GB-ARAB; any other suffix -> that suffix (`(FR)` -> FR; for
 * Arabian races abroad `(UAE) (ARAB)` -> UAE-ARAB; a track qualifier such as `(Perth) (AUS)` -> AUS).
 */
export function courseIdentity(courseName: string): CourseIdentity {
  const suffixes = courseSuffixes(courseName);
  const trackVariant = suffixes.includes('AW') ? 'AW' : suffixes.includes('July') ? 'July' : null;
  const rest = suffixes.filter((x) => x !== 'AW' && x !== 'July');
  const arab = rest.includes('ARAB');
  const codes = rest.filter((x) => x !== 'ARAB');
  const base = codes.length === 0 ? 'GB' : codes[codes.length - 1]!;
  const country = arab ? `${base}-ARAB` : base;
  const region: Region = base === 'GB' ? 'GB' : base === 'IRE' ? 'IRE' : 'INT';
  return { country, region, trackVariant };
}

/** The brief's rule for Irish INH flat races (and bumpers) typed `Hurdle` in the files. */
export const NH_FLAT_NAME_RE = /\b(INH Flat|National Hunt Flat|Bumper)\b/i;
/** Extended rule (option `extendedFlatRaceRule`): other flat-race titles the source types `Hurdle`. */
const FLAT_RACE_NAME_RE = /\bflat races?\b/i;

/**
 * Discipline from RaceType (+ race name). Undefined for an unknown RaceType.
 *
 * Brief rule: Other -> flat, Hurdle -> hurdle, SteepleChase -> chase, Flat -> nh-flat, and Hurdle whose
 * name matches {@link NH_FLAT_NAME_RE} -> nh-flat.
 *
 * Extended rule (opt-in): the source's scraper types any title containing " flat race" as Hurdle when
 * no obstacle is shown, so a Hurdle race whose name does not say "hurdle" but says "flat race(s)" is
 * nh-flat (GB "NH Flat Race", Irish "(Pro/Am) Flat Race", "I.N.H. Flat Race") unless it was run from
 * stalls, in which case it is a flat race (e.g. "Handicap (Not Won A Flat Race In 2026)").
 */
export function disciplineOf(
  raceType: string,
  raceName: string,
  opts: { extended: boolean; hasStalls: boolean },
): Discipline | undefined {
  switch (raceType) {
    case 'Other':
      return 'flat';
    case 'SteepleChase':
      return 'chase';
    case 'Flat':
      return 'nh-flat';
    case 'Hurdle':
      if (NH_FLAT_NAME_RE.test(raceName)) return 'nh-flat';
      if (opts.extended && !/hurdle/i.test(raceName) && FLAT_RACE_NAME_RE.test(raceName)) {
        return opts.hasStalls ? 'flat' : 'nh-flat';
      }
      return 'hurdle';
    default:
      return undefined;
  }
}

/**
 * Surface: Turf -> turf, AllWeather -> aw, Unknown -> aw when the course name has `(AW)` else turf.
 * Dirt (US, UAE, KSA, JPN tracks; not covered by the brief) -> aw: the service knows only turf and aw,
 * and a dirt track is a non-turf surface. Undefined for anything else.
 */
export function surfaceOf(surface: string, courseName: string): Surface | undefined {
  switch (surface) {
    case 'Turf':
      return 'turf';
    case 'AllWeather':
    case 'Dirt':
      return 'aw';
    case 'Unknown':
      return /\(AW\)/.test(courseName) ? 'aw' : 'turf';
    default:
      return undefined;
  }
}

/** `Class N` -> N (1..7), blank -> 0 (unknown); undefined for anything else. */
export function raceClassOf(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return 0;
  const m = /^Class\s*([1-7])$/i.exec(t);
  return m ? Number(m[1]) : undefined;
}

const STATUS: Record<string, string> = {
  CompletedRace: 'finished',
  PulledUp: 'pulled-up',
  Fell: 'fell',
  UnseatedRider: 'unseated',
  BroughtDown: 'brought-down',
  RefusedToRace: 'refused',
  Refused: 'refused',
  RanOut: 'ran-out',
  SlippedUp: 'slipped-up',
  CarriedOut: 'carried-out',
  Disqualified: 'disqualified',
};

/** `SomeValue` / `Some Value` / `some_value` -> `some-value`. */
export function lowerKebab(s: string): string {
  return s
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[\s_]+/g, '-')
    .toLowerCase();
}

/** ResultStatus -> the result schema's status; unknown values -> their lower-kebab form. */
export function statusOf(resultStatus: string): string {
  return STATUS[resultStatus.trim()] ?? lowerKebab(resultStatus);
}

/**
 * Favourite flag from the fractional SP: the files mark the favourite `F`, a joint favourite `J` and a
 * co-favourite `C` after the price (`8/15F`, `2/1J`, `3/1C`, `EvensF`, `EvsJ`); `Evs` alone is evens.
 */
export function isFavourite(fractionalOdds: string): boolean {
  return /[0-9a-z][FJC]$/.test(fractionalOdds.trim());
}

/** Strict non-negative integer (digits only); undefined otherwise. */
export function parseUint(s: string): number | undefined {
  const t = s.trim();
  if (!/^\d{1,9}$/.test(t)) return undefined;
  return Number(t);
}

/** A finite decimal number (e.g. `1.5333333333333332`, `12`); undefined otherwise. */
export function parseDecimal(s: string): number | undefined {
  const t = s.trim();
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

/**
 * Black type from the Pattern column: `(Group N)` / `(Grade N)` (also a truncated `(Group 1 ` from a
 * foreign "(Group 1 Handicap)") -> groupN; `Listed` -> listed; any other value -> none: Irish and
 * jumps `(Grade A)` / `(Grade B)` handicaps, and a value cut from inside a title such as " Group 1)"
 * of "(Local Group 1)" (Bahrain, Qatar, Japan's local graded races) or "(AQPS Grade 2)" (French
 * races for non-thoroughbreds), which are not international black type. Blank -> '' (unknown: the
 * files leave it blank for every other race, but a blank does not say "not black type").
 */
export function patternOf(text: string): Pattern {
  if (text.trim() === '') return '';
  const t = text.trimEnd();
  if (/^\(?listed\)?$/i.test(t.trim())) return 'listed';
  const m = /^\((?:Group|Grade)\s*([123])\b/i.exec(t);
  if (m) return `group${m[1]}` as Pattern;
  return 'none';
}

/** catalogue.md: a handicap when the race name contains "handicap", any case. */
export function isHandicapName(raceName: string): boolean {
  return /handicap/i.test(raceName);
}

/** A race for fillies and mares only: SexRestriction `Fillies`, or "Mares" in the title of an unrestricted race. */
export function femaleOnlyRace(sexRestriction: string, raceName: string): boolean {
  const r = sexRestriction.trim();
  if (r === 'Fillies') return true;
  return (r === '' || r === 'None') && /\bmares'?(?=\s|$|\))/i.test(raceName);
}

/**
 * The runner's sex where the files say it: a runner in a fillies' (and mares') race is female (`f`
 * up to 3 years old, `m` from 4, as catalogue.md's `h` for males); GeldingFirstTime `True` is a
 * gelding. Otherwise '' (unknown): the files have no sex column.
 */
export function sexOf(femaleOnly: boolean, age: number, geldingFirstTime: string): Sex {
  if (femaleOnly) return age === 0 ? '' : age <= 3 ? 'f' : 'm';
  return geldingFirstTime.trim().toLowerCase() === 'true' ? 'g' : '';
}
