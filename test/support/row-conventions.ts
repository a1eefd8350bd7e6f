import type { AnalyticsRow } from '../../domain/avro-types.generated.js';

const RATE_FIELDS = [
  'courseForm',
  'winRatioLast5',
  'vprConfidence',
  'jockeyWinRate90Day',
  'trainer14DayWinRate',
  'sireProgenyWinRate',
  'drawBiasStrength',
] as const;

/** Every convention of features.md a row must satisfy; returns the violations (empty when fine). */
export function conventionViolations(r: AnalyticsRow): string[] {
  const v: string[] = [];
  const k = `${r.raceId}/${r.horseId}`;
  if (!/^rac_[0-9a-z]+$/.test(r.raceId)) v.push(`${k}: raceId prefix`);
  if (!/^hrs_[0-9a-z]+$/.test(r.horseId)) v.push(`${k}: horseId prefix`);
  if (!/^jky_/.test(r.jockeyId) || !/^trn_/.test(r.trainerId) || !/^crs_/.test(r.courseId))
    v.push(`${k}: entity id prefixes`);
  if (r.sireId !== null && !/^sir_/.test(r.sireId)) v.push(`${k}: sireId prefix`);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(r.computedAtUtc)) v.push(`${k}: computedAtUtc format`);
  if (!Number.isInteger(r.position) || r.position < 0 || r.position > 9) v.push(`${k}: position ${r.position}`);
  if (r.status === 'provisional' && r.position !== 0) v.push(`${k}: provisional with position`);
  for (const f of RATE_FIELDS) {
    const x = r[f];
    if (!(x >= 0 && x <= 1)) v.push(`${k}: ${f}=${x} not in [0,1]`);
    if (Math.round(x * 10_000) / 10_000 !== x) v.push(`${k}: ${f}=${x} not rounded to 4 dp`);
  }
  if ((r.lastRunDays === 730) !== (r.careerRuns === 0)) v.push(`${k}: lastRunDays 730 iff careerRuns 0`);
  if (r.lastRunDays < 0 || r.lastRunDays > 730) v.push(`${k}: lastRunDays ${r.lastRunDays}`);
  if (r.careerRuns === 0) {
    for (const f of ['distanceDifferenceY', 'ratingDifference', 'weightDifferenceLbs', 'classDifference'] as const) {
      if (r[f] !== -999) v.push(`${k}: ${f} must be -999 without a previous run`);
    }
  }
  if (r.officialRating === 0 && r.ratingDifference !== -999) v.push(`${k}: ratingDifference with unknown rating`);
  if (r.raceClass === 0 && r.classDifference !== -999) v.push(`${k}: classDifference with unknown class`);
  const sf = /^(\d+)-(\d+)-(\d+)$/.exec(r.stableForm);
  if (!sf) v.push(`${k}: stableForm shape ${r.stableForm}`);
  else if (Number(sf[1]) + Number(sf[2]) > Number(sf[3]) || Number(sf[3]) !== r.trainerRunners14Day)
    v.push(`${k}: stableForm W+P<=R`);
  if (r.careerWins > r.careerRuns) v.push(`${k}: careerWins > careerRuns`);
  if (r.courseFormRuns > 5 || r.courseFormRuns > r.careerRuns) v.push(`${k}: courseFormRuns`);
  if (Math.round(r.vprConfidence * 6) > r.careerRuns) v.push(`${k}: vprConfidence beyond runs`);
  if (Math.round(r.vpr * 10) / 10 !== r.vpr) v.push(`${k}: vpr not rounded to 0.1`);
  if (r.improvingVpr && r.vprConfidence < 0.5) v.push(`${k}: improvingVpr needs 3 figures`);
  if (r.sireId === null && (r.sireProgenyWinRate !== 0 || r.sireProgenyRuns !== 0))
    v.push(`${k}: sire unknown but rate`);
  if (r.draw === 0 && r.drawBiasStrength !== 0) v.push(`${k}: drawBiasStrength without draw`);
  return v;
}
