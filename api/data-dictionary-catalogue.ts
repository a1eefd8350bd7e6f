/**
 * Data dictionary texts for the 162 fields of the extended catalogue (../shared/spec/catalogue.md,
 * normative) in 14 families, plus the vocabulary every dictionary entry uses: families, entity keys,
 * origins. api/data-dictionary.ts joins these with the texts of the 45 fields the row had before and
 * checks the union against schemas/AnalyticsRow.avsc. Where catalogue.md leaves room, the reading taken
 * is the one listed in docs/features.md ("Readings of catalogue.md").
 *
 * Families whose fields share a shape (G's seven scopes, J and K's thirteen fields for the jockey and the
 * trainer, M's sire composites) are described once and looped over, so they cannot drift apart.
 */

/** confirmed: named by interface-spec.md; features: features.md only; catalogue: catalogue.md; extension: ours. */
export type Origin = 'confirmed' | 'features' | 'catalogue' | 'extension';

/** The families of catalogue.md, and `confirmed` for the 45 fields the row had before the catalogue. */
export const FAMILIES = {
  confirmed:
    'The row before the catalogue: identity, the card used, the fields interface-spec.md confirms and ' +
    'features.md defines, and their companion counts',
  A: 'Race context (own card and course record)',
  B: "Runner on today's card",
  C: 'Horse form (horse history)',
  D: 'Ratings (horse history)',
  E: 'Changes since the last run (horse history and own card)',
  F: 'Equipment (horse history and own card)',
  G: "The horse under today's conditions (horse history)",
  I: 'Course snapshot in force (snapshot key of features.md)',
  J: 'Jockey (jockey; jockey+course; jockey+discipline)',
  K: 'Trainer (trainer; trainer+course; trainer+discipline)',
  L: 'Partnerships and owner (trainer+jockey; owner)',
  M: 'Breeding (sire and its composites; dam sire; dam)',
  N: "Market history (horse history; only past races' starting prices)",
  R: 'Ranks within the race (second stage)',
} as const;
export type Family = keyof typeof FAMILIES;

/** The one key whose visible history (besides the race's own card) a field is a function of. */
export const ENTITY_KEYS = {
  'race card': "the race's own card (the version features.md names), nothing else",
  'race result': "the race's own result (position and status; computedAtUtc is its event time)",
  horse: "the horse's history (runs visible under the point-in-time rule), possibly filtered by a condition",
  jockey: 'runs whose card named the jockey',
  trainer: 'runs whose card named the trainer',
  owner: 'runs whose card named the owner',
  sire: 'runs whose card named the sire as sire',
  dam: 'runs whose card named the dam',
  'dam sire': 'runs whose card named the sire as dam sire',
  'jockey+course': 'runs whose card named the jockey, at this course',
  'jockey+discipline': "runs whose card named the jockey, in today's discipline",
  'trainer+course': 'runs whose card named the trainer, at this course',
  'trainer+discipline': "runs whose card named the trainer, in today's discipline",
  'trainer+jockey': "runs whose card named both today's trainer and today's jockey",
  'sire+surface': "progeny runs of the sire on today's surface",
  'sire+going group': "progeny runs of the sire in today's going group",
  'sire+distance bucket': "progeny runs of the sire in today's distance bucket",
  'sire+discipline': "progeny runs of the sire in today's discipline",
  'dam sire+distance bucket': "progeny runs of the dam sire in today's distance bucket",
  'course record': 'the course record in force at the off',
  'course snapshot key': 'the course snapshot in force for (course, discipline, distance bucket, surface)',
  'race (rank)': 'the other rows of the same race and card version (second stage)',
} as const;
export type EntityKey = keyof typeof ENTITY_KEYS;

export interface FieldText {
  origin: Origin;
  family: Family;
  entityKey: EntityKey;
  unit: string | null;
  definition: string;
  /** The unknown-value convention. */
  missing: string;
  /** Decimal places the value is rounded to (doubles only); absent when not rounded by rule. */
  decimals?: number;
  codeTable?: string;
  openData?: true;
}

/** A field's text within a group that supplies the family, the default entity key and the origin. */
export type GroupText = Omit<FieldText, 'family' | 'entityKey' | 'origin'> & { entityKey?: EntityKey; origin?: Origin };

/** Stamps the family, entity key (unless the entry names its own) and origin on a group of texts. */
export function group<K extends string>(
  family: Family,
  entityKey: EntityKey,
  origin: Origin,
  texts: Record<K, GroupText>,
): Record<K, FieldText> {
  const out = {} as Record<K, FieldText>;
  for (const [name, t] of Object.entries(texts) as [K, GroupText][]) {
    out[name] = { ...t, family, entityKey: t.entityKey ?? entityKey, origin: t.origin ?? origin };
  }
  return out;
}

export const RATE = 'fraction in [0, 1]';
export const R4 = ' Rounded to 4 decimal places.';
export const FORM_SCORE =
  'Form score per run: 3 for a win, 2 for 2nd, 1 for 3rd, 0 otherwise; position 0 (outside the top 9, ' +
  'non-finisher) scores 0. Averaged over the runs named, then divided by 3, so in [0, 1].';
const FIG = '1 dp rating (lbs scale)';
const AE = 'A/E ratio (1 = as the market expected)';
const NO_PREV = 'when the horse has no previous run';
const zeroRate = (companion: string) => `0 when the denominator is empty (${companion} = 0)`;
const PRB =
  'PRB (proportion of rivals beaten) of a run: (ran - pos) / (ran - 1) for a finisher, 1 when ran = 1, 0 for a ' +
  "non-finisher (position 0); ran = the runners in that race's result, finishers and non-finishers.";
const AE_DEF =
  "wins / the sum of 1/SP over the runs that have a starting price (SP: the result's decimal price, stake " +
  'included; wins counted only among those runs).';
const LEVEL_DEF =
  'profit of a 1-unit win bet at SP on every run that has an SP: SP / k - 1 for a win in a k-way dead heat ' +
  '(k = 1 normally), -1 for every other run. Rounded to 2 decimal places.';
const rate4 = (unit: string, definition: string, missing: string): GroupText => ({
  unit,
  definition: definition + R4,
  missing,
  decimals: 4,
});

const A = group('A', 'race card', 'catalogue', {
  isHandicap: {
    unit: null,
    definition: 'The card\'s handicap flag (the results importer: the race name contains "handicap", any case).',
    missing: 'false when the card does not say',
  },
  patternCode: {
    unit: 'code',
    definition:
      "Black-type status from the card's pattern (table patternCode): 1 not black type, 2 listed, 3 group 3, " +
      '4 group 2, 5 group 1. Grade 1-3 map to groups 1-3; other gradings (Grade A/B) are not black type.',
    missing: "0 = unknown (the card's pattern is empty)",
    codeTable: 'patternCode',
  },
  goingGroupCode: {
    unit: 'code',
    definition:
      "Going group of today's going (table goingGroupCode), matched case-insensitively: 1 firm (Hard, Firm, Good " +
      'To Firm), 2 good (Good, Good To Yielding), 3 soft (Good To Soft, Yielding, Yielding To Soft, Soft), 4 heavy ' +
      '(Soft To Heavy, Heavy), 5 AW standard or faster (Fast, Standard To Fast, Standard), 6 AW slow (Standard To ' +
      'Slow, Slow).',
    missing: '0 = unknown (a going not in the table)',
    codeTable: 'goingGroupCode',
  },
  monthOfYear: { unit: 'month (1..12)', definition: "The off's calendar month in UTC.", missing: 'never missing' },
  courseDirectionCode: {
    entityKey: 'course record',
    unit: 'code',
    definition:
      'Direction from the course record in force at the off (table courseDirectionCode): 1 left-handed, ' +
      '2 right-handed, 3 straight only, 4 figure of eight.',
    missing: '0 = unknown (every course record built from the results files has direction unknown)',
    codeTable: 'courseDirectionCode',
  },
});

const DRAW_RANK =
  "the race's drawn runners (draw > 0) ordered by (draw, horseId), this runner's rank r (1-based) of n (equal " +
  "draws do not happen on a valid card; the horseId makes the rank independent of the card's order)";

const B = group('B', 'race card', 'catalogue', {
  age: { unit: 'years', definition: "The horse's age on the card used.", missing: '0 = unknown' },
  sexCode: {
    unit: 'code',
    definition:
      "The horse's sex on the card used (table sexCode): 1 colt, 2 filly, 3 gelding, 4 mare, 5 horse (entire, " +
      '4yo+), 6 rig.',
    missing: '0 = unknown (the results files have no sex column)',
    codeTable: 'sexCode',
  },
  headgear: {
    unit: 'headgear letters (table headgear)',
    definition:
      'Canonical headgear on the card used: the distinct codes in the order b blinkers, v visor, h hood, ' +
      'p cheekpieces, t tongue strap, e eye shield or eye cover (e.g. "bt", "hp"). The importer reads the ' +
      "results files' codes with e/s as e and drops the first-time marker digit (t1 -> t): first time is " +
      'derived from history (firstTimeHeadgear).',
    missing: '"" = none (also when the card does not say)',
    codeTable: 'headgear',
  },
  hasHeadgear: { unit: null, definition: 'headgear is not empty.', missing: 'false when none' },
  jockeyClaimLbs: {
    unit: 'lbs',
    definition: "The rider's allowance on the card used (apprentice, conditional or amateur claim).",
    missing: '0 when none or unknown',
  },
  weightVsTopLbs: {
    unit: 'lbs',
    definition:
      "The heaviest weight carried among the race's runners (declared runners of the card used less " +
      "non-runners) minus this runner's weight: 0 for the top weight.",
    missing: 'never missing',
  },
  weightVsMeanLbs: rate4(
    'lbs',
    "This runner's weight carried minus the mean weight of the race's runners (signed).",
    'never missing',
  ),
  drawPct: rate4(RATE, `(r - 1) / (n - 1), with ${DRAW_RANK}; 0 when n = 1.`, 'null without a draw (draw 0)'),
  drawThirdCode: {
    unit: 'code',
    definition:
      `This runner's draw third (table drawThirdCode): with ${DRAW_RANK}, third floor((r - 1) * 3 / n) + 1: ` +
      '1 low, 2 middle, 3 high, as in the course snapshots.',
    missing: '0 = no draw',
    codeTable: 'drawThirdCode',
  },
  officialRatingGapToTop: {
    unit: 'rating points',
    definition:
      "The highest official rating among the race's rated runners (rating > 0) minus this runner's: 0 for the " +
      'top-rated.',
    missing: 'null when this runner is unrated (officialRating 0)',
  },
  stableRunnersInRace: {
    unit: 'runners',
    definition: "The race's runners with this runner's trainer (card used, non-runners excluded), itself included.",
    missing: 'never missing (at least 1)',
  },
});

const C = group('C', 'horse', 'catalogue', {
  careerWinRate: rate4(RATE, 'careerWins / careerRuns.', zeroRate('careerRuns')),
  careerPlaces: {
    unit: 'runs',
    definition: 'Placed runs of the history: position 1..3 in the result (dead heats: each horse in it).',
    missing: '0 when no runs',
  },
  careerPlaceRate: rate4(RATE, 'careerPlaces / careerRuns.', zeroRate('careerRuns')),
  careerFormScore: rate4(
    'form score in [0, 1]',
    `Form score over all runs of the history. ${FORM_SCORE}`,
    '0 when no runs',
  ),
  formScoreLast3: rate4('form score in [0, 1]', 'Form score over the last 3 (or fewer) runs.', '0 when no runs'),
  formScoreLast6: rate4('form score in [0, 1]', 'Form score over the last 6 (or fewer) runs.', '0 when no runs'),
  lastPosition: {
    unit: 'position',
    definition:
      "The last run's finishing position as in its result: 1..n (may exceed 9, unlike position; equal in a dead " +
      'heat); 0 for a non-finisher.',
    missing: `null ${NO_PREV}`,
  },
  lastBeatenLengths: rate4(
    'lengths',
    "The last run's cumulative beaten lengths behind the winner (0 for a win).",
    `null ${NO_PREV} or the last run was a non-finisher`,
  ),
  meanBeatenLengthsLast3: rate4(
    'lengths',
    'Mean beaten lengths (0 for a win) over the finishers among the last 3 runs.',
    'null when none of the last 3 runs finished (or no previous run)',
  ),
  lastPrb: rate4(RATE, `PRB of the last run. ${PRB}`, `null ${NO_PREV}`),
  meanPrbLast3: rate4(RATE, 'Mean PRB of the last 3 (or fewer) runs.', `null ${NO_PREV}`),
  careerPrb: rate4(RATE, 'Mean PRB of all runs of the history.', `null ${NO_PREV}`),
  runsLast90Days: {
    unit: 'runs',
    definition: 'Runs of the history off in [off - 90 days, off) (90 x 86,400,000 ms before the UTC off).',
    missing: '0 when none',
  },
  runsLast365Days: {
    unit: 'runs',
    definition: 'Runs of the history off in [off - 365 days, off).',
    missing: '0 when none',
  },
  winsLast365Days: {
    unit: 'runs',
    definition: 'Wins of the history off in [off - 365 days, off).',
    missing: '0 when none',
  },
  daysSinceLastWin: {
    unit: 'days',
    definition:
      "Calendar days between the UTC date of the last win's off and this off's UTC date, capped at 729 (as " +
      'lastRunDays).',
    missing: '730 when the history has no win',
  },
  runsSinceLastWin: {
    unit: 'runs',
    definition: 'Runs of the history newer than the last win.',
    missing: 'careerRuns when the history has no win',
  },
  isDebut: { unit: null, definition: 'careerRuns = 0.', missing: 'never missing' },
  isReappearance: { unit: null, definition: 'careerRuns > 0 and lastRunDays >= 90.', missing: `false ${NO_PREV}` },
  nonCompletionsLast5: {
    unit: 'runs',
    definition: 'Non-finishers (position 0: pulled up, fell, unseated, disqualified, ...) among the last 5 runs.',
    missing: '0 when no runs',
  },
  lastRunWon: {
    unit: null,
    definition: 'The last run was a win (position 1, dead heat included).',
    missing: `false ${NO_PREV}`,
  },
  winStreak: {
    unit: 'runs',
    definition: 'Consecutive wins counted from the last run backwards (0 when the last run was not a win).',
    missing: '0 when no runs',
  },
});

const fig = (definition: string, missing: string): GroupText => ({ unit: FIG, definition, missing, decimals: 1 });
const FIGURE = 'the run figure of features.md (as used by vpr, rounded to 0.1)';

const D = group('D', 'horse', 'catalogue', {
  lastFigure: fig(`The last run's figure: ${FIGURE}.`, `null ${NO_PREV} or the last run has no figure (non-finisher)`),
  bestFigureLast3: fig(
    `The best figure among the newest 3 runs that have one (the selection rule of vpr's 6); ${FIGURE}.`,
    'null when no run has a figure',
  ),
  meanFigureLast3: fig(
    'The plain (unweighted) mean of the figures bestFigureLast3 looks at, rounded to 0.1.',
    'null when no run has a figure',
  ),
  careerBestFigure: fig(`The best figure over all runs of the history; ${FIGURE}.`, 'null when no run has a figure'),
  lastOfficialRating: {
    unit: 'rating points',
    definition: "The official rating carried on the last run (that race's card).",
    missing: `null ${NO_PREV} or it was unrated (rating 0)`,
  },
  careerMaxOfficialRating: {
    unit: 'rating points',
    definition: 'The highest official rating carried in any run of the history.',
    missing: 'null when no run was rated (or no previous run)',
  },
  officialRatingVsCareerMax: {
    unit: 'rating points',
    definition: "Today's official rating minus careerMaxOfficialRating.",
    missing: "null when today's rating (0) or careerMaxOfficialRating is unknown",
  },
  lastWinOfficialRating: {
    unit: 'rating points',
    definition: 'The official rating carried in the most recent win.',
    missing: 'null when the history has no win or that win was unrated',
  },
  vprMinusOfficialRating: fig(
    "vpr (as published, rounded to 0.1) minus today's official rating.",
    "null when today's rating is unknown (0) or vprConfidence = 0",
  ),
});

const E_NOTE = ' For a horse with no previous run it is true when today has the property.';
const E = group('E', 'horse', 'catalogue', {
  surfaceSwitch: {
    unit: null,
    definition: "The last run's surface differs from today's.",
    missing: `false ${NO_PREV}`,
  },
  disciplineSwitch: {
    unit: null,
    definition: "The last run's discipline differs from today's.",
    missing: `false ${NO_PREV}`,
  },
  firstTimeChase: {
    unit: null,
    definition: 'Today is a chase and no run of the history was a chase.' + E_NOTE,
    missing: 'never missing',
  },
  firstTimeHurdle: {
    unit: null,
    definition: 'Today is a hurdle and no run of the history was a hurdle.' + E_NOTE,
    missing: 'never missing',
  },
  firstTimeAw: {
    unit: null,
    definition: 'Today is on the all-weather (surface aw) and no run of the history was.' + E_NOTE,
    missing: 'never missing',
  },
  handicapDebut: {
    unit: null,
    definition: "Today is a handicap and no run of the history was one (each run's card isHandicap)." + E_NOTE,
    missing: 'never missing',
  },
  goingGroupChanged: {
    unit: null,
    definition: "The last run's going group differs from today's, both known.",
    missing: `false ${NO_PREV} or either going group is unknown`,
  },
  fieldSizeDifference: {
    unit: 'runners',
    definition: "Today's fieldSize minus the last run's ran (the runners in its result).",
    missing: `null ${NO_PREV}`,
  },
  untriedDistanceBucket: {
    unit: null,
    definition: "No run of the history is in today's distance bucket." + E_NOTE,
    missing: 'never missing',
  },
  untriedGoingGroup: {
    unit: null,
    definition: "No run of the history is in today's going group." + E_NOTE,
    missing: "false when today's going group is unknown",
  },
  untriedSurface: {
    unit: null,
    definition: "No run of the history is on today's surface." + E_NOTE,
    missing: 'never missing',
  },
  trainerChanged: {
    unit: null,
    definition: "The last run's trainer differs from today's, both known.",
    missing: `false ${NO_PREV} or either trainer is unknown`,
  },
  runsForTrainer: {
    unit: 'runs',
    definition: "Runs of the history whose card named today's trainer.",
    missing: '0 when none',
  },
  jockeyChanged: { unit: null, definition: "The last run's jockey differs from today's.", missing: `false ${NO_PREV}` },
  ownerChanged: {
    unit: null,
    definition: "The last run's owner differs from today's, both known.",
    missing: `false ${NO_PREV} or either owner is unknown (the results files name owners from 2026-06 only)`,
  },
});

const F = group('F', 'horse', 'catalogue', {
  firstTimeHeadgear: {
    unit: null,
    definition: 'Today has headgear and no run of the history had any (true for a debutant wearing headgear).',
    missing: 'false when today has none',
  },
  headgearChanged: {
    unit: null,
    definition: "Today's canonical headgear differs from the last run's (put on, taken off or changed).",
    missing: `false ${NO_PREV}`,
  },
  headgearRemoved: {
    unit: null,
    definition: 'The last run had headgear and today has none.',
    missing: `false ${NO_PREV}`,
  },
  runsInTodaysHeadgear: {
    unit: 'runs',
    definition:
      "Runs of the history whose canonical headgear equals today's, none included (without headgear today: the " +
      'runs without headgear).',
    missing: '0 when none',
  },
});

/** catalogue.md G: a run of the history is in scope when... */
const SCOPES: readonly [string, string][] = [
  ['Course', 'at this course (same courseId)'],
  ['Distance', "in today's distance bucket"],
  ['Going', "in today's going group (none in scope when today's going group is unknown)"],
  ['Surface', "on today's surface"],
  ['Discipline', "in today's discipline"],
  [
    'Class',
    "in a race of the same or a higher grade: both classes known and the run's class <= today's (none in scope " +
      "when today's class is unknown)",
  ],
  ['CourseDistance', "at this course and in today's distance bucket"],
];
const G = group('G', 'horse', 'catalogue', {
  ...Object.fromEntries(
    SCOPES.flatMap(([scope, inScope]): [string, GroupText][] => [
      [`horse${scope}Runs`, { unit: 'runs', definition: `Runs of the history ${inScope}.`, missing: '0 when none' }],
      [`horse${scope}Wins`, { unit: 'runs', definition: `Wins of the history ${inScope}.`, missing: '0 when none' }],
      [
        `horse${scope}FormScore`,
        rate4(
          'form score in [0, 1]',
          `Form score over all runs of the history ${inScope}.`,
          zeroRate(`horse${scope}Runs`),
        ),
      ],
    ]),
  ),
  horseJockeyRuns: {
    unit: 'runs',
    definition: "Runs of the history ridden by today's jockey.",
    missing: '0 when none',
  },
  horseJockeyWins: {
    unit: 'runs',
    definition: "Wins of the history ridden by today's jockey.",
    missing: '0 when none',
  },
});

const SNAP =
  "From the course snapshot in force at the off for this race's (course, discipline, distance bucket, surface): " +
  'the same snapshot as drawBiasStrength.';
const NO_SNAP = '0 when there is no snapshot';
const thirdRate = (third: string): GroupText =>
  rate4(
    RATE,
    `${SNAP} The share of its draw races (a draw and at least 6 runners) won from the ${third} third of the draw.`,
    `${NO_SNAP} or it has no draw race`,
  );

const I = group('I', 'course snapshot key', 'catalogue', {
  snapshotRaces: { unit: 'races', definition: `${SNAP} Races in the snapshot.`, missing: NO_SNAP },
  snapshotMeanFieldSize: rate4('runners per race', `${SNAP} Its runners / races.`, NO_SNAP),
  snapshotFavouriteWinRate: rate4(
    RATE,
    `${SNAP} Races won by a favourite (joint favourites count once per race) / races with a favourite.`,
    `${NO_SNAP} or it has no race with a favourite`,
  ),
  snapshotFavouritePlaceRate: rate4(
    RATE,
    `${SNAP} Races in which a favourite finished within the places (1 for fields under 5, 2 for 5 to 7 ` +
      'runners, 3 for 8 or more) / races with a favourite.',
    `${NO_SNAP} or it has no race with a favourite`,
  ),
  snapshotDrawLowWinRate: thirdRate('low'),
  snapshotDrawMiddleWinRate: thirdRate('middle'),
  snapshotDrawHighWinRate: thirdRate('high'),
  drawBias: rate4(
    'signed fraction in [-1, 1]',
    `${SNAP} The low-third minus the high-third win rate, from unrounded rates (drawBiasStrength is its ` +
      'absolute value); given for every runner, drawn or not.',
    `${NO_SNAP} or it has no draw race`,
  ),
  drawThirdWinRate: rate4(
    RATE,
    `${SNAP} Its win rate of this runner's draw third (drawThirdCode).`,
    `${NO_SNAP}, it has no draw race, or this runner has no draw`,
  ),
});

/** J and K: the same thirteen shapes for the jockey (rides, 14 days) and the trainer (runners, 30 days). */
function personFields(family: 'J' | 'K', who: 'jockey' | 'trainer', Runs: string, short: number) {
  const runs = Runs.toLowerCase();
  const win = (window: string, companion: string, where = '') =>
    rate4(RATE, `Wins / ${runs} of the ${who}${where}, ${window}.`, zeroRate(companion));
  const inWindow = (days: number) => `off in [off - ${days} days, off)`;
  return group(family, who, 'catalogue', {
    [`${who}${Runs}${short}Day`]: {
      unit: runs,
      definition: `The ${who}'s ${runs} (runs whose card named the ${who}) ${inWindow(short)}.`,
      missing: '0 when none',
    },
    [`${who}WinRate${short}Day`]: win(`${short} days`, `${who}${Runs}${short}Day`),
    [`${who}${Runs}365Day`]: {
      unit: runs,
      definition: `The ${who}'s ${runs} ${inWindow(365)}.`,
      missing: '0 when none',
    },
    [`${who}WinRate365Day`]: win('365 days', `${who}${Runs}365Day`),
    [`${who}PlaceRate365Day`]: rate4(
      RATE,
      `Placed (position 1..3) / ${runs} of the ${who}, 365 days.`,
      zeroRate(`${who}${Runs}365Day`),
    ),
    [`${who}Ae365Day`]: rate4(
      AE,
      `Actual over expected over the ${who}'s 365-day ${runs}: ${AE_DEF}`,
      '0 when the sum of 1/SP is 0',
    ),
    [`${who}LevelStakes365Day`]: {
      unit: 'points per 1-unit stake',
      definition: `Level stakes over the ${who}'s 365-day ${runs}: ${LEVEL_DEF}`,
      missing: `0 when no ${runs.slice(0, -1)} has an SP`,
      decimals: 2,
    },
    [`${who}ShrunkWinRate365Day`]: rate4(
      RATE,
      `(wins + 2) / (${runs} + 20) over the ${who}'s 365-day ${runs}: a prior of 0.1 worth 20 ${runs}.`,
      `never unknown: 0.1 when there are no ${runs}`,
    ),
    [`${who}Course${Runs}5Year`]: {
      entityKey: `${who}+course`,
      unit: runs,
      definition: `The ${who}'s ${runs} at this course (same courseId) ${inWindow(1826)} (5 years).`,
      missing: '0 when none',
    },
    [`${who}CourseWinRate5Year`]: {
      ...win('5 years', `${who}Course${Runs}5Year`, ' at this course'),
      entityKey: `${who}+course`,
    },
    [`${who}Discipline${Runs}365Day`]: {
      entityKey: `${who}+discipline`,
      unit: runs,
      definition: `The ${who}'s ${runs} in today's discipline ${inWindow(365)}.`,
      missing: '0 when none',
    },
    [`${who}DisciplineWinRate365Day`]: {
      ...win('365 days', `${who}Discipline${Runs}365Day`, " in today's discipline"),
      entityKey: `${who}+discipline`,
    },
    [`${who}DaysSinceLastWinner`]: {
      unit: 'days',
      definition:
        `Calendar days between the UTC date of the ${who}'s last winner (all visible history) and this off's UTC ` +
        'date, capped at 729 (as lastRunDays).',
      missing: `730 when the ${who} has no visible winner`,
    },
  });
}

const L = group('L', 'trainer+jockey', 'catalogue', {
  trainerJockeyRuns365Day: {
    unit: 'runs',
    definition: "Runs off in [off - 365 days, off) whose card named both today's trainer and today's jockey.",
    missing: '0 when none',
  },
  trainerJockeyWinRate365Day: rate4(RATE, 'Wins / trainerJockeyRuns365Day.', zeroRate('trainerJockeyRuns365Day')),
  trainerJockeyAe365Day: rate4(AE, `Actual over expected over those runs: ${AE_DEF}`, '0 when the sum of 1/SP is 0'),
  ownerRunners365Day: {
    entityKey: 'owner',
    unit: 'runners',
    definition: "Runs off in [off - 365 days, off) whose card named this runner's owner.",
    missing: "0 when this runner's owner is unknown (the results files name owners from 2026-06 only) or none",
  },
  ownerWinRate365Day: {
    entityKey: 'owner',
    ...rate4(RATE, 'Wins / ownerRunners365Day.', `${zeroRate('ownerRunners365Day')}; 0 when the owner is unknown`),
  },
  ownerAe365Day: {
    entityKey: 'owner',
    ...rate4(
      AE,
      `Actual over expected over the owner's 365-day runners: ${AE_DEF}`,
      '0 when unknown or the sum of 1/SP is 0',
    ),
  },
});

const PROGENY = "progeny runs (all visible runs, all time, whose card named this runner's sire as sire)";
const SIRE_UNKNOWN = "0 when this runner's sire is unknown";
/** catalogue.md M: the sire's composites with today's condition. */
const SIRE_SCOPES: readonly [string, EntityKey, string, string][] = [
  ['Surface', 'sire+surface', "on today's surface", ''],
  ['Going', 'sire+going group', "in today's going group", " or today's going group is unknown"],
  ['Distance', 'sire+distance bucket', "in today's distance bucket", ''],
  ['Discipline', 'sire+discipline', "in today's discipline", ''],
];
const meanWinDist = (whose: string): GroupText => ({
  unit: 'yards',
  definition: `The mean race distance in yards of the ${whose} progeny runs that were wins, rounded to 0.1.`,
  missing: `null when the ${whose.replace("'s", '')} is unknown or has no progeny win`,
  decimals: 1,
});
const DAM_SIRE_UNKNOWN = "0 when this runner's dam sire is unknown (the results files do not name dam sires)";

const M = group('M', 'sire', 'catalogue', {
  sireProgenyPlaceRate: rate4(
    RATE,
    `Placed (position 1..3) / ${PROGENY}.`,
    `${SIRE_UNKNOWN}; ${zeroRate('sireProgenyRuns')}`,
  ),
  sireProgenyAe: rate4(
    AE,
    `Actual over expected over the sire's ${PROGENY}: ${AE_DEF}`,
    `${SIRE_UNKNOWN} or the sum of 1/SP is 0`,
  ),
  sireShrunkWinRate: rate4(
    RATE,
    `(wins + 2) / (runs + 20) over the sire's ${PROGENY}: a prior of 0.1 worth 20 runs.`,
    `${SIRE_UNKNOWN}; 0.1 for a known sire without progeny runs`,
  ),
  ...Object.fromEntries(
    SIRE_SCOPES.flatMap(([scope, entityKey, inScope, orUnknown]): [string, GroupText][] => [
      [
        `sire${scope}Runs`,
        {
          entityKey,
          unit: 'runs',
          definition: `The sire's progeny runs ${inScope}.`,
          missing: SIRE_UNKNOWN + orUnknown,
        },
      ],
      [
        `sire${scope}WinRate`,
        {
          entityKey,
          ...rate4(
            RATE,
            `Wins / the sire's progeny runs ${inScope}.`,
            `${SIRE_UNKNOWN}${orUnknown}; ${zeroRate(`sire${scope}Runs`)}`,
          ),
        },
      ],
    ]),
  ),
  sireMeanWinningDistanceY: meanWinDist("sire's"),
  damSireProgenyRuns: {
    entityKey: 'dam sire',
    unit: 'runs',
    definition: "Runs whose card named this runner's dam sire as dam sire (all visible runs, all time).",
    missing: DAM_SIRE_UNKNOWN,
  },
  damSireProgenyWinRate: {
    entityKey: 'dam sire',
    ...rate4(RATE, 'Wins / damSireProgenyRuns.', `${DAM_SIRE_UNKNOWN}; ${zeroRate('damSireProgenyRuns')}`),
  },
  damSireDistanceRuns: {
    entityKey: 'dam sire+distance bucket',
    unit: 'runs',
    definition: "The dam sire's progeny runs in today's distance bucket.",
    missing: DAM_SIRE_UNKNOWN,
  },
  damSireDistanceWinRate: {
    entityKey: 'dam sire+distance bucket',
    ...rate4(RATE, "Wins / the dam sire's progeny runs in today's distance bucket.", DAM_SIRE_UNKNOWN),
  },
  damSireMeanWinningDistanceY: { entityKey: 'dam sire', ...meanWinDist("dam sire's") },
  damProgenyRuns: {
    entityKey: 'dam',
    unit: 'runs',
    definition:
      "Every visible run, all time, whose card named this runner's dam: her other offspring's runs and this " +
      "horse's own.",
    missing: "0 when this runner's dam is unknown (the results files name dams from 2026-06-23)",
  },
  damProgenyWins: {
    entityKey: 'dam',
    unit: 'runs',
    definition: 'Wins among damProgenyRuns.',
    missing: "0 when this runner's dam is unknown",
  },
  damProgenyWinRate: {
    entityKey: 'dam',
    ...rate4(RATE, 'damProgenyWins / damProgenyRuns.', `0 when the dam is unknown; ${zeroRate('damProgenyRuns')}`),
  },
});

const N = group('N', 'horse', 'catalogue', {
  lastStartingPrice: {
    unit: 'decimal odds (stake included)',
    definition:
      "The last run's decimal starting price from its result, rounded to 2 decimal places (today's price is " +
      'never used: it is published at the off).',
    missing: `null ${NO_PREV} or the last run has no SP`,
    decimals: 2,
  },
  lastRunFavourite: {
    unit: null,
    definition: 'The last run was favourite in its result (joint or co-favourite included).',
    missing: `false ${NO_PREV}`,
  },
  beatenFavouriteLast: {
    unit: null,
    definition: 'The last run was favourite and not a win.',
    missing: `false ${NO_PREV}`,
  },
  meanImpliedProbabilityLast3: rate4(
    'probability in [0, 1]',
    'The mean of 1/SP over the newest 3 runs that have an SP (runs without one are skipped, as vpr skips runs ' +
      'without a figure).',
    'null when no run has an SP',
  ),
  careerFavouriteRuns: {
    unit: 'runs',
    definition: 'Runs of the history as favourite (joint or co-favourite included).',
    missing: '0 when none',
  },
  horseAe: rate4(AE, `Actual over expected over all runs of the history: ${AE_DEF}`, '0 when the sum of 1/SP is 0'),
});

const RANK =
  'Competition rank within the race (1 = the highest value, ties share the best rank: 1, 2, 2, 4) among the ' +
  'runners of the card used';
const R = group('R', 'race (rank)', 'catalogue', {
  vprRankInRace: {
    unit: 'rank',
    definition: `${RANK} with vprConfidence > 0, of vpr as published (0.1).`,
    missing: '0 when vprConfidence = 0',
  },
  vprGapToBest: {
    unit: FIG,
    definition: "The best vpr among the race's runners with vprConfidence > 0 minus this runner's (0 for the best).",
    missing: 'null when vprConfidence = 0',
    decimals: 1,
  },
  officialRatingRankInRace: {
    unit: 'rank',
    definition: `${RANK} that are rated (rating > 0), of today's official rating.`,
    missing: '0 when unrated',
  },
  weightRankInRace: {
    unit: 'rank',
    definition: `${RANK}, of weight carried (1 = the heaviest).`,
    missing: 'never missing',
  },
  jockeyWinRate90DayRankInRace: {
    unit: 'rank',
    definition: `${RANK} whose jockey has rides in the window (jockeyRides90Day > 0), of jockeyWinRate90Day as published (4 dp).`,
    missing: '0 when jockeyRides90Day = 0',
  },
  trainer14DayWinRateRankInRace: {
    unit: 'rank',
    definition: `${RANK} whose trainer has runners in the window (trainerRunners14Day > 0), of trainer14DayWinRate as published (4 dp).`,
    missing: '0 when trainerRunners14Day = 0',
  },
});

/** The 162 catalogue fields, by name. */
export const CATALOGUE_FIELDS: Readonly<Record<string, FieldText>> = {
  ...A,
  ...B,
  ...C,
  ...D,
  ...E,
  ...F,
  ...G,
  ...I,
  ...personFields('J', 'jockey', 'Rides', 14),
  ...personFields('K', 'trainer', 'Runners', 30),
  ...L,
  ...M,
  ...N,
  ...R,
};

/** catalogue.md's rules and shared definitions, as published in the dictionary's conventions. */
export const CATALOGUE_CONVENTIONS: readonly { rule: string; statement: string }[] = [
  {
    rule: 'one entity',
    statement:
      "Every catalogue field is a function of the race's own card and of the visible history of one key (its " +
      'entityKey); a horse history filtered by a condition is still the horse history. Ranks (family R) are a ' +
      'second stage over the other rows of the same race and card version.',
  },
  {
    rule: 'people and pedigree of a run',
    statement:
      "A run counts for the jockey, trainer, owner, sire, dam and dam sire named on that run's card; a run whose " +
      "card names none counts for none; a row whose own card names none gets the family's unknown value.",
  },
  {
    rule: 'windows',
    statement:
      '[off - d days, off) as absolute UTC instants (d x 86,400,000 ms); 5 years is 1826 days; no window means ' +
      'all visible history.',
  },
  {
    rule: 'unknown values',
    statement:
      'Enum codes use 0; the four delta fields keep -999; every other value that can be unknown (no previous run, ' +
      'unrated, no draw, no price) is null, and its type says | null. Rates with an empty denominator are 0 and ' +
      'rest on the companion count.',
  },
  {
    rule: 'positions',
    statement:
      "pos is the result's finishing position (1..n, may exceed 9, equal in a dead heat), 0 for a non-finisher. " +
      'Win: pos = 1. Placed: pos in 1..3. Ran: the runners in that result, finishers and non-finishers.',
  },
  { rule: 'PRB', statement: PRB },
  { rule: 'A/E', statement: `Actual over expected over a set of runs: ${AE_DEF} 0 when that sum is 0.` },
  { rule: 'level stakes', statement: `Over a set of runs: the ${LEVEL_DEF}` },
  { rule: 'shrunk win rate', statement: '(wins + 2) / (runs + 20): a prior of 0.1 worth 20 runs.' },
  {
    rule: 'draw third',
    statement:
      "Among the race's drawn runners ordered by draw, rank r (1-based) of n falls in third floor((r - 1) * 3 / n): " +
      '0 low, 1 middle, 2 high (drawThirdCode adds 1), as in the course snapshots.',
  },
  {
    rule: "the race's runners",
    statement: 'The declared runners of the card used that are not non-runners.',
  },
];
