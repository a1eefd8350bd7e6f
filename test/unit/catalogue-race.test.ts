/**
 * catalogue.md families A (race context) and B (runner on today's card), hand-computed.
 */
import { describe, expect, it } from 'vitest';
import {
  type CardRunnerInput,
  drawRanks,
  RACE_CONTEXT_FIELDS,
  raceContextFeatures,
  RUNNER_CARD_FIELDS,
  runnerCardFeatures,
} from '../../domain/features/race-context.js';

function runner(horseId: string, f: Partial<CardRunnerInput> = {}): CardRunnerInput {
  return {
    horseId,
    draw: 0,
    weightLbs: 130,
    officialRating: 0,
    trainerId: '',
    age: 0,
    sex: '',
    headgear: '',
    jockeyClaimLbs: 0,
    ...f,
  };
}

/**
 * Six runners. Draws 3, 1, none, 2, 2 (a tie: by horseId, hrs_4 before hrs_5), 5: drawn n = 5 in the
 * order hrs_2 (r 1), hrs_4 (2), hrs_5 (3), hrs_1 (4), hrs_6 (5).
 * Weights 140 + 133 + 126 + 140 + 131 + 129 = 799, mean 133.1667, top 140.
 * Ratings 90, 85, unrated, 90, 70, 88: top 90.
 * Trainers trn_A (hrs_1, hrs_3, hrs_5), trn_B (hrs_2), unknown (hrs_4, hrs_6).
 */
function card(): CardRunnerInput[] {
  return [
    runner('hrs_1', {
      draw: 3,
      weightLbs: 140,
      officialRating: 90,
      trainerId: 'trn_A',
      age: 4,
      sex: 'g',
      headgear: 'tb',
    }),
    runner('hrs_2', {
      draw: 1,
      weightLbs: 133,
      officialRating: 85,
      trainerId: 'trn_B',
      age: 5,
      sex: 'm',
      headgear: 'p',
    }),
    runner('hrs_3', { draw: 0, weightLbs: 126, officialRating: 0, trainerId: 'trn_A', jockeyClaimLbs: 7 }),
    runner('hrs_4', {
      draw: 2,
      weightLbs: 140,
      officialRating: 90,
      age: 3,
      sex: 'f',
      headgear: 'h',
      jockeyClaimLbs: 3,
    }),
    runner('hrs_5', { draw: 2, weightLbs: 131, officialRating: 70, trainerId: 'trn_A', age: 6, sex: 'r' }),
    runner('hrs_6', { draw: 5, weightLbs: 129, officialRating: 88, age: 7, sex: 'h', headgear: 'v' }),
  ];
}

describe('A: race context', () => {
  it('codes from the card and the course record; the month is the UTC month of the off', () => {
    const a = raceContextFeatures({
      off: Date.UTC(2024, 2, 31, 23, 30), // 23:30 UTC on 31 March: March even where it is already April locally
      going: 'good to soft', // group 3 (soft), case-insensitive
      isHandicap: false,
      pattern: 'group2',
      direction: 'right',
    });
    expect(a).toEqual({ isHandicap: false, patternCode: 4, goingGroupCode: 3, monthOfYear: 3, courseDirectionCode: 2 });
    expect(Object.keys(a)).toEqual([...RACE_CONTEXT_FIELDS]);
    expect(RACE_CONTEXT_FIELDS).toHaveLength(5);
  });

  it('unknowns are 0', () => {
    expect(
      raceContextFeatures({
        off: Date.UTC(2024, 11, 1, 12),
        going: 'Standard To Slow', // 6 AW slow
        isHandicap: true,
        pattern: '',
        direction: 'unknown',
      }),
    ).toEqual({ isHandicap: true, patternCode: 0, goingGroupCode: 6, monthOfYear: 12, courseDirectionCode: 0 });
    expect(
      raceContextFeatures({
        off: Date.UTC(2024, 0, 1),
        going: 'Muddy',
        isHandicap: false,
        pattern: 'none',
        direction: 'figure-of-eight',
      }),
    ).toEqual({ isHandicap: false, patternCode: 1, goingGroupCode: 0, monthOfYear: 1, courseDirectionCode: 4 });
  });
});

describe('B: runner on today card', () => {
  it('every field of every runner', () => {
    const b = runnerCardFeatures(card());
    expect(RUNNER_CARD_FIELDS).toHaveLength(11);
    for (const row of b) expect(Object.keys(row)).toEqual([...RUNNER_CARD_FIELDS]);
    expect(b).toEqual([
      {
        age: 4,
        sexCode: 3, // g
        headgear: 'bt', // canonical order of 'tb'
        hasHeadgear: true,
        jockeyClaimLbs: 0,
        weightVsTopLbs: 0, // 140 - 140
        weightVsMeanLbs: 6.8333, // 140 - 133.16667
        drawPct: 0.75, // r 4 of 5: 3 / 4
        drawThirdCode: 2, // floor(3 * 3 / 5) = 1 middle
        officialRatingGapToTop: 0, // 90 - 90
        stableRunnersInRace: 3, // trn_A
      },
      {
        age: 5,
        sexCode: 4, // m
        headgear: 'p',
        hasHeadgear: true,
        jockeyClaimLbs: 0,
        weightVsTopLbs: 7, // 140 - 133
        weightVsMeanLbs: -0.1667, // 133 - 133.16667
        drawPct: 0, // r 1
        drawThirdCode: 1, // floor(0) low
        officialRatingGapToTop: 5, // 90 - 85
        stableRunnersInRace: 1,
      },
      {
        age: 0,
        sexCode: 0,
        headgear: '',
        hasHeadgear: false,
        jockeyClaimLbs: 7,
        weightVsTopLbs: 14, // 140 - 126
        weightVsMeanLbs: -7.1667, // 126 - 133.16667
        drawPct: null, // no draw
        drawThirdCode: 0,
        officialRatingGapToTop: null, // unrated
        stableRunnersInRace: 3,
      },
      {
        age: 3,
        sexCode: 2, // f
        headgear: 'h',
        hasHeadgear: true,
        jockeyClaimLbs: 3,
        weightVsTopLbs: 0,
        weightVsMeanLbs: 6.8333,
        drawPct: 0.25, // r 2: 1 / 4
        drawThirdCode: 1, // floor(1 * 3 / 5) = 0 low
        officialRatingGapToTop: 0,
        stableRunnersInRace: 1, // trainer unknown: only itself
      },
      {
        age: 6,
        sexCode: 6, // r
        headgear: '',
        hasHeadgear: false,
        jockeyClaimLbs: 0,
        weightVsTopLbs: 9, // 140 - 131
        weightVsMeanLbs: -2.1667, // 131 - 133.16667
        drawPct: 0.5, // r 3: 2 / 4
        drawThirdCode: 2, // floor(2 * 3 / 5) = 1 middle
        officialRatingGapToTop: 20, // 90 - 70
        stableRunnersInRace: 3,
      },
      {
        age: 7,
        sexCode: 5, // h
        headgear: 'v',
        hasHeadgear: true,
        jockeyClaimLbs: 0,
        weightVsTopLbs: 11, // 140 - 129
        weightVsMeanLbs: -4.1667, // 129 - 133.16667
        drawPct: 1, // r 5: 4 / 4
        drawThirdCode: 3, // floor(4 * 3 / 5) = 2 high
        officialRatingGapToTop: 2, // 90 - 88
        stableRunnersInRace: 1,
      },
    ]);
  });

  it('equal draws are ordered by horseId whatever the card order', () => {
    const c = card();
    expect(drawRanks(c)).toEqual([4, 1, 0, 2, 3, 5]);
    const reversed = [...c].reverse();
    expect(runnerCardFeatures(reversed)).toEqual(runnerCardFeatures(c).reverse());
  });

  it('one drawn runner: drawPct 0, low third; no rated runner: every gap null', () => {
    const b = runnerCardFeatures([runner('hrs_1', { draw: 4 }), runner('hrs_2'), runner('hrs_3', { weightLbs: 121 })]);
    expect(b.map((x) => [x.drawPct, x.drawThirdCode, x.officialRatingGapToTop])).toEqual([
      [0, 1, null],
      [null, 0, null],
      [null, 0, null],
    ]);
    // weights 130, 130, 121: mean 127, top 130
    expect(b.map((x) => [x.weightVsTopLbs, x.weightVsMeanLbs])).toEqual([
      [0, 3],
      [0, 3],
      [9, -6],
    ]);
  });

  it('an empty card has no rows', () => {
    expect(runnerCardFeatures([])).toEqual([]);
  });
});
