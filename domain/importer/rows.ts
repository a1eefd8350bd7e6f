/**
 * One results-file row -> a checked runner row, or the reason it cannot be imported. Every check here
 * is per row, so one bad runner row is rejected on its own and the rest of its race is kept.
 */
import { canonicalHeadgear, type Pattern, type Sex, type Surface } from '../codes.js';
import { MAX_JOCKEY_CLAIM_LBS } from '../validate.js';
import {
  cleanName,
  cleanPersonOrHorseName,
  femaleOnlyRace,
  isFavourite,
  parseDecimal,
  parseUint,
  patternOf,
  raceClassOf,
  sexOf,
  statusOf,
  surfaceOf,
} from './mapping.js';
import { parseUkOff, type UkOff } from './uk-time.js';

/** Columns every results file must have (the 40-column layout; 2026-06..08 add more). */
export const REQUIRED_COLUMNS = [
  'RaceName',
  'CourseId',
  'CourseName',
  'Off',
  'RaceType',
  'Class',
  'DistanceInYards',
  'Going',
  'Surface',
  'HorseId',
  'HorseName',
  'JockeyId',
  'JockeyName',
  'TrainerId',
  'TrainerName',
  'Age',
  'RaceCardNumber',
  'StallNumber',
  'WeightInPounds',
  'FractionalOdds',
  'DecimalOdds',
  'OfficialRating',
  'ResultStatus',
  'FinishingPosition',
  'OverallBeatenDistance',
  'RaceTimeInSeconds',
] as const;

type RequiredColumn = (typeof REQUIRED_COLUMNS)[number];
/** Columns read when present: Pattern, SexRestriction and HeadGear are in every file; the rest in 2026-06..08. */
const OPTIONAL_COLUMNS = [
  'CardOfficialRating',
  'SireName',
  'SireCountry',
  'Pattern',
  'SexRestriction',
  'HeadGear',
  'JockeyAllowanceLbs',
  'OwnerId',
  'OwnerName',
  'DamName',
  'GeldingFirstTime',
] as const;
type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

/** Column positions of one file's header. */
export interface Columns {
  count: number;
  at: Record<RequiredColumn, number>;
  optional: Partial<Record<OptionalColumn, number>>;
}

/** Reads a header record; `missing` lists the required columns it lacks. */
export function readHeader(fields: string[]): { columns?: Columns; missing: string[] } {
  const pos = new Map<string, number>();
  fields.forEach((f, i) => {
    const name = f.trim();
    if (!pos.has(name)) pos.set(name, i);
  });
  const missing = REQUIRED_COLUMNS.filter((c) => !pos.has(c));
  if (missing.length > 0) return { missing };
  const at = Object.fromEntries(REQUIRED_COLUMNS.map((c) => [c, pos.get(c)!])) as Record<RequiredColumn, number>;
  const optional: Partial<Record<OptionalColumn, number>> = {};
  for (const c of OPTIONAL_COLUMNS) {
    const i = pos.get(c);
    if (i !== undefined) optional[c] = i;
  }
  return { columns: { count: fields.length, at, optional }, missing };
}

/** A runner row that passed every row-level check. Race-level fields are repeated on every row. */
export interface RunnerRow {
  line: number;
  /** `${CourseId}\u0000${Off}`: the race key (RaceId is not unique in the source) */
  raceKey: string;
  /** the race-level fields as written, to check every row of a race agrees with its first */
  raceSignature: string;
  courseSourceId: string;
  /** Off exactly as written (trimmed): part of the race's source identity */
  offText: string;
  off: UkOff;
  raceName: string;
  courseName: string;
  raceType: string;
  raceClass: number;
  distanceYards: number;
  going: string;
  surface: Surface;
  /** the file's Surface value (Turf, AllWeather, Dirt, Unknown) */
  surfaceText: string;
  horseSourceId: string;
  horseName: string;
  jockeySourceId: string;
  jockeyName: string;
  trainerSourceId: string;
  trainerName: string;
  age: number;
  saddleCloth: number;
  draw: number;
  weightLbs: number;
  /** OfficialRating, 0 when blank */
  resultRating: number;
  /** CardOfficialRating when the column exists and is filled, else null */
  cardRating: number | null;
  sireName: string | null;
  sireCountry: string | null;
  /** Pattern column mapped ('' when blank or absent) */
  pattern: Pattern;
  /** from SexRestriction / the race name, the age and GeldingFirstTime; '' unknown */
  sex: Sex;
  /** canonical headgear ('' none or no column) */
  headgear: string;
  /** JockeyAllowanceLbs, 0 when blank or absent */
  jockeyClaimLbs: number;
  /** OwnerId when filled (and not 0), else null; ownerName is '' then */
  ownerSourceId: string | null;
  ownerName: string;
  /** DamName when filled, else null */
  damName: string | null;
  position: number;
  status: string;
  beatenLengths: number;
  startingPrice: number | null;
  favourite: boolean;
  /** RaceTimeInSeconds (> 0), else null */
  raceTimeSeconds: number | null;
}

export interface RowRejection {
  reason: string;
  detail: string;
}

const reject = (reason: string, detail: string): RowRejection => ({ reason, detail });

function sourceId(value: string, column: string, missingReason: string, badReason: string): string | RowRejection {
  const t = value.trim();
  if (t === '') return reject(missingReason, `${column} is blank`);
  // Racing Post ids are positive integers; the source writes 0 for a person without a profile link.
  if (!/^\d+$/.test(t) || /^0+$/.test(t)) return reject(badReason, `${column} ${JSON.stringify(t)} is not an id`);
  return t;
}

/** Parses and checks one data row. */
export function parseRunnerRow(fields: string[], cols: Columns, line: number): RunnerRow | RowRejection {
  if (fields.length !== cols.count) {
    return reject('column-count', `${fields.length} fields, header has ${cols.count}`);
  }
  const a = cols.at;
  const f = (c: RequiredColumn) => fields[a[c]]!;

  const courseSourceId = sourceId(f('CourseId'), 'CourseId', 'missing-course-id', 'bad-course-id');
  if (typeof courseSourceId !== 'string') return courseSourceId;
  const offText = f('Off').trim();
  const off = parseUkOff(offText);
  if (!off) return reject('bad-off', `Off ${JSON.stringify(offText)} is not MM/dd/yyyy HH:mm:ss`);
  const horseSourceId = sourceId(f('HorseId'), 'HorseId', 'missing-horse-id', 'bad-horse-id');
  if (typeof horseSourceId !== 'string') return horseSourceId;
  const jockeySourceId = sourceId(f('JockeyId'), 'JockeyId', 'missing-jockey-id', 'bad-jockey-id');
  if (typeof jockeySourceId !== 'string') return jockeySourceId;
  const trainerSourceId = sourceId(f('TrainerId'), 'TrainerId', 'missing-trainer-id', 'bad-trainer-id');
  if (typeof trainerSourceId !== 'string') return trainerSourceId;

  const raceType = f('RaceType').trim();
  if (!['Other', 'Hurdle', 'SteepleChase', 'Flat'].includes(raceType)) {
    return reject('unknown-race-type', `RaceType ${JSON.stringify(raceType)}`);
  }
  const courseNameRaw = f('CourseName');
  const courseName = cleanName(courseNameRaw);
  if (courseName === '') return reject('missing-course-name', 'CourseName is blank');
  const surfaceText = f('Surface').trim();
  const surface = surfaceOf(surfaceText, courseName);
  if (!surface) return reject('unknown-surface', `Surface ${JSON.stringify(surfaceText)}`);
  const raceClass = raceClassOf(f('Class'));
  if (raceClass === undefined) return reject('bad-class', `Class ${JSON.stringify(f('Class'))}`);
  const distanceYards = parseUint(f('DistanceInYards'));
  if (distanceYards === undefined) {
    return reject('bad-distance', `DistanceInYards ${JSON.stringify(f('DistanceInYards'))} is not a whole number`);
  }

  const weightLbs = parseUint(f('WeightInPounds'));
  if (weightLbs === undefined || weightLbs > 400) {
    return reject('bad-weight', `WeightInPounds ${JSON.stringify(f('WeightInPounds'))} is not a weight in lb`);
  }
  const ageText = f('Age').trim();
  const age = ageText === '' ? 0 : parseUint(ageText);
  if (age === undefined) return reject('bad-age', `Age ${JSON.stringify(ageText)}`);
  const saddleCloth = parseUint(f('RaceCardNumber'));
  if (saddleCloth === undefined)
    return reject('bad-saddle-cloth', `RaceCardNumber ${JSON.stringify(f('RaceCardNumber'))}`);
  const stallText = f('StallNumber').trim();
  const draw = stallText === '' ? 0 : parseUint(stallText);
  if (draw === undefined) return reject('bad-draw', `StallNumber ${JSON.stringify(stallText)}`);
  const orText = f('OfficialRating').trim();
  const resultRating = orText === '' ? 0 : parseUint(orText);
  if (resultRating === undefined) return reject('bad-official-rating', `OfficialRating ${JSON.stringify(orText)}`);
  let cardRating: number | null = null;
  if (cols.optional.CardOfficialRating !== undefined) {
    const t = fields[cols.optional.CardOfficialRating]!.trim();
    if (t !== '') {
      const v = parseUint(t);
      if (v === undefined) return reject('bad-card-official-rating', `CardOfficialRating ${JSON.stringify(t)}`);
      cardRating = v;
    }
  }
  let sireName: string | null = null;
  let sireCountry: string | null = null;
  if (cols.optional.SireName !== undefined) {
    const name = cleanName(fields[cols.optional.SireName]!);
    if (name !== '') {
      sireName = name;
      const c = cols.optional.SireCountry === undefined ? '' : fields[cols.optional.SireCountry]!.trim();
      sireCountry = c === '' ? null : c.toUpperCase();
    }
  }

  const opt = (c: OptionalColumn): string => {
    const i = cols.optional[c];
    return i === undefined ? '' : fields[i]!;
  };
  const claimText = opt('JockeyAllowanceLbs').trim();
  const jockeyClaimLbs = claimText === '' ? 0 : parseUint(claimText);
  if (jockeyClaimLbs === undefined || jockeyClaimLbs > MAX_JOCKEY_CLAIM_LBS)
    return reject('bad-jockey-allowance', `JockeyAllowanceLbs ${JSON.stringify(claimText)}`);
  const ownerText = opt('OwnerId').trim();
  if (ownerText !== '' && !/^\d+$/.test(ownerText))
    return reject('bad-owner-id', `OwnerId ${JSON.stringify(ownerText)} is not an id`);
  // 0 is the source's "no profile" id, as for jockeys and trainers; here it only means unknown.
  const ownerSourceId = ownerText === '' || /^0+$/.test(ownerText) ? null : ownerText;
  const damText = cleanName(opt('DamName'));

  const position = parseUint(f('FinishingPosition'));
  if (position === undefined)
    return reject('bad-position', `FinishingPosition ${JSON.stringify(f('FinishingPosition'))}`);
  const statusText = f('ResultStatus').trim();
  if (statusText === '') return reject('missing-result-status', 'ResultStatus is blank');
  let beatenLengths = 0;
  if (position > 1) {
    const v = parseDecimal(f('OverallBeatenDistance'));
    if (v === undefined || v < 0) {
      return reject('bad-beaten-distance', `OverallBeatenDistance ${JSON.stringify(f('OverallBeatenDistance'))}`);
    }
    beatenLengths = v;
  }
  const spText = f('DecimalOdds').trim();
  let startingPrice: number | null = null;
  if (spText !== '') {
    const v = parseDecimal(spText);
    if (v === undefined || v <= 0) return reject('bad-decimal-odds', `DecimalOdds ${JSON.stringify(spText)}`);
    startingPrice = v;
  }
  let raceTimeSeconds: number | null = null;
  const timeText = f('RaceTimeInSeconds').trim();
  if (position === 1 && timeText !== '') {
    const v = parseDecimal(timeText);
    if (v === undefined || v < 0) return reject('bad-race-time', `RaceTimeInSeconds ${JSON.stringify(timeText)}`);
    raceTimeSeconds = v > 0 ? v : null; // 0 means the time was not recorded
  }

  const raceName = cleanName(f('RaceName'));
  const going = f('Going').trim();
  const sex = sexOf(femaleOnlyRace(opt('SexRestriction'), raceName), age, opt('GeldingFirstTime'));
  const raceSignature = [raceName, courseName, raceType, raceClass, distanceYards, going, surfaceText].join('\u0000');
  return {
    line,
    raceKey: `${courseSourceId}\u0000${offText}`,
    raceSignature,
    courseSourceId,
    offText,
    off,
    raceName,
    courseName,
    raceType,
    raceClass,
    distanceYards,
    going,
    surface,
    surfaceText,
    horseSourceId,
    horseName: cleanPersonOrHorseName(f('HorseName')),
    jockeySourceId,
    jockeyName: cleanPersonOrHorseName(f('JockeyName')),
    trainerSourceId,
    trainerName: cleanPersonOrHorseName(f('TrainerName')),
    age,
    saddleCloth,
    draw,
    weightLbs,
    resultRating,
    cardRating,
    sireName,
    sireCountry,
    pattern: patternOf(opt('Pattern')),
    sex,
    headgear: canonicalHeadgear(opt('HeadGear')),
    jockeyClaimLbs,
    ownerSourceId,
    ownerName: ownerSourceId === null ? '' : cleanName(opt('OwnerName')),
    damName: damText === '' ? null : damText,
    position,
    status: statusOf(statusText),
    beatenLengths,
    startingPrice,
    favourite: isFavourite(f('FractionalOdds')),
    raceTimeSeconds,
  };
}

export function isRejection(x: RunnerRow | RowRejection): x is RowRejection {
  return (x as RowRejection).reason !== undefined;
}
