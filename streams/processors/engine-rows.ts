/**
 * Rows: assembling a race's analytics rows from its own card and result, the horse's history and one
 * entity key per indexed kind (looping over the entity table), then the ranks within the race (family
 * R, a second stage over the race's rows). Synchronous: the caller first makes what a set of races'
 * rows read resident (`EngineResidency.readyRowsMany`).
 */
import avro from 'avsc';
import type { AnalyticsRow, Course, RaceCardRunner } from '../../domain/avro-types.generated.js';
import { distanceBucket, distanceBucketCode, disciplineCode, goingCode, surfaceCode } from '../../domain/codes.js';
import { ENTITY_KINDS, type RowContext } from '../../domain/features/entity-table.js';
import { type HorseCatalogue, horseCatalogue } from '../../domain/features/horse-catalogue.js';
import { horseFeatures, type TodayContext } from '../../domain/features/horse.js';
import { raceContextFeatures, runnerCardFeatures } from '../../domain/features/race-context.js';
import { rankFields } from '../../domain/features/ranks.js';
import { EMPTY_HISTORY } from '../../domain/features/window-source.js';
import type { SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import { isoUtc } from '../../domain/time.js';
import { avroBytes } from '../avro-bytes.js';
import { loadSchemaText, WIRE_HEADER_BYTES } from '../serde.js';
import { effectiveCard, keyOf, latestCard, linkPlan } from './engine-links.js';
import type { EngineResidency } from './engine-residency.js';
import type { EngineState, RaceState } from './engine-state.js';

/** schemas/AnalyticsRow.avsc, parsed once: the rows' blank values and their Avro type are made from it. */
const ROW_SCHEMA = JSON.parse(loadSchemaText('AnalyticsRow')) as avro.Schema & {
  fields: { name: string; type: unknown; default?: unknown }[];
};

/**
 * A new row with every field at its schema default, in schema order (the order rows are built and
 * fingerprinted in). Made by a function returning one object literal: V8 clones its boilerplate in
 * fast mode, where spreading a 200-field template would make a slow dictionary-mode object.
 */
const newRow = rowFactory();

const ROW_TYPE = avro.Type.forSchema(ROW_SCHEMA);

/** The bytes `encodeRow` leaves before a row's Avro binary: the wire format's header (magic byte, schema id). */
export const ROW_HEADER_BYTES = WIRE_HEADER_BYTES;

/**
 * A row's Avro binary (schemas/AnalyticsRow.avsc) after ROW_HEADER_BYTES bytes left for the wire
 * format's header, as a read-only view of the shared encoding slab (avroBytes): the engine fingerprints
 * the binary, and the processor frames and produces the same bytes (`TopicCodec.frame`).
 */
export function encodeRow(row: AnalyticsRow): Buffer {
  // (the header zeroed: the slab's bytes there are left over from earlier values)
  return avroBytes(ROW_TYPE, row, ROW_HEADER_BYTES).fill(0, 0, ROW_HEADER_BYTES);
}

function rowFactory(): () => AnalyticsRow {
  return new Function(`return ${JSON.stringify(blankRow())};`) as () => AnalyticsRow;
}

function blankRow(): AnalyticsRow {
  const row: Record<string, unknown> = {};
  for (const f of ROW_SCHEMA.fields) {
    if ('default' in f) row[f.name] = f.default;
    else if (Array.isArray(f.type)) row[f.name] = null;
    else row[f.name] = f.type === 'string' ? '' : f.type === 'boolean' ? false : 0;
  }
  return row as unknown as AnalyticsRow;
}

/** What a row reads of a course version (family A's direction, the topology fields), as one string. */
function rowCourseFields(c: Course): string {
  const t = c.topology;
  return t ? `${c.direction}|${t.totalClimbM}|${t.undulationIndex}|${t.elevationRangeM}` : `${c.direction}|`;
}

/**
 * The publishedAt of the version from which the course fields a row off at `off` reads have been those
 * of the version in force (0 without one): a later version that changes none of them (a surface history,
 * a sibling) is not an input of the row, so it moves no provisional row's computedAtUtc.
 */
function courseFieldsSince(versions: readonly Course[], off: number): number {
  let since = 0;
  let fields: string | undefined;
  for (const c of versions) {
    if (c.publishedAt >= off) break;
    const f = rowCourseFields(c);
    if (f !== fields) {
      since = c.publishedAt;
      fields = f;
    }
  }
  return since;
}

const byHorseId = (a: RaceCardRunner, b: RaceCardRunner) =>
  a.horseId < b.horseId ? -1 : a.horseId > b.horseId ? 1 : 0;

/**
 * The current rows of a race (final once its result is in: its starters'), ordered by horseId. What they
 * read must be resident (`EngineResidency.readyRowsMany` over the race's links).
 */
export function computeRows(
  state: EngineState,
  residency: EngineResidency,
  race: RaceState,
  cal: SnapshotCalendar,
): AnalyticsRow[] {
  const latest = latestCard(race.cards);
  if (!latest) return [];
  const result = race.result;
  const card = effectiveCard(race.cards, result !== null)!;
  const off = latest.offTime;
  const declared = card.runners.filter((r) => !r.nonRunner);
  const byHorse = new Map((result?.runners ?? []).map((r) => [r.horseId, r]));
  // Every declared runner's row is assembled (the ranks are over the runners of the card used); those
  // the result leaves out are withdrawn at the start and not returned.
  const runners = [...declared].sort(byHorseId);
  // The race's links (brought in line with its card and result by every change) name the same runners,
  // keyed the same way: their plan's keys and resolved indexes serve the rows too.
  const links = race.links!;
  const plan = linkPlan(links);
  const sources = residency.rowSources(links);
  const linkPos = new Map(links.runners.map((x, j) => [x.horseId, j]));

  const course = state.courseAt(card.courseId, off);
  const topo = course?.topology ?? null;
  const raceCtx = raceContextFeatures({
    off,
    going: card.going,
    isHandicap: card.isHandicap,
    pattern: card.pattern,
    direction: course?.direction ?? '',
  });
  // Family B is over the race's runners (declared, not non-runners), whichever of them started.
  const cardFeatures = runnerCardFeatures(declared);
  const cardOf = new Map(declared.map((r, i) => [r.horseId, cardFeatures[i]!]));
  const bucket = distanceBucket(card.distanceYards);
  const common = {
    offTime: isoUtc(off),
    courseId: card.courseId,
    fieldSize: declared.length,
    distanceYards: card.distanceYards,
    raceClass: card.raceClass,
    disciplineCode: disciplineCode(card.discipline),
    surfaceCode: surfaceCode(card.surface),
    goingCode: goingCode(card.going),
    distanceBucketCode: distanceBucketCode(bucket),
    courseTotalClimbM: topo ? topo.totalClimbM : null,
    courseUndulationIndex: topo ? topo.undulationIndex : null,
    courseElevationRangeM: topo ? topo.elevationRangeM : null,
  };

  const rows: AnalyticsRow[] = [];
  // A provisional row's inputs: the card version, the course version from which what the row reads of
  // it (family A's direction, the topology fields) is that in force, the latest visible result of each
  // of its own keys, and that of the keys family R reads in every row of the race (the horse's, the
  // jockey's and the trainer's). A final row's time is its result's.
  const raceLatest = result
    ? 0
    : Math.max(card.publishedAt, courseFieldsSince(state.courseVersions(card.courseId), off));
  const ownLatest: number[] = [];
  let rankedLatest = 0;
  for (let i = 0; i < runners.length; i++) {
    const r = runners[i]!;
    const j = linkPos.get(r.horseId);
    if (j === undefined) throw new Error(`race ${race.raceId}: runner ${r.horseId} is not in its links`);
    const f = links.runners[j]!;
    const row = newRow();
    Object.assign(row, common);
    row.raceId = race.raceId;
    row.horseId = r.horseId;
    row.jockeyId = r.jockeyId;
    row.trainerId = r.trainerId;
    row.sireId = r.sireId;
    row.draw = r.draw;
    row.weightLbs = r.weightLbs;
    row.officialRating = r.officialRating;

    const today: TodayContext = {
      off,
      courseId: card.courseId,
      distanceYards: card.distanceYards,
      distanceBucket: bucket,
      surface: card.surface,
      discipline: card.discipline,
      goingGroup: links.goingGroup,
      raceClass: card.raceClass,
      isHandicap: card.isHandicap,
      officialRating: r.officialRating,
      weightLbs: r.weightLbs,
      headgear: f.headgear,
      jockeyId: r.jockeyId,
      trainerId: r.trainerId,
      ownerId: r.ownerId,
      fieldSize: declared.length,
    };
    const horse = state.peekHorse(r.horseId);
    if (!horse) throw new Error(`race ${race.raceId}: horse ${r.horseId} is not in memory (readyRowsMany first)`);
    const runs = horse.runs;
    const hf = horseFeatures(runs, today);
    row.careerRuns = hf.careerRuns;
    row.careerWins = hf.careerWins;
    row.courseForm = hf.courseForm;
    row.courseFormRuns = hf.courseFormRuns;
    row.winRatioLast5 = hf.winRatioLast5;
    row.vpr = hf.vpr;
    row.vprConfidence = hf.vprConfidence;
    row.improvingVpr = hf.improvingVpr;
    row.distanceDifferenceY = hf.distanceDifferenceY;
    row.ratingDifference = hf.ratingDifference;
    row.weightDifferenceLbs = hf.weightDifferenceLbs;
    row.classDifference = hf.classDifference;
    row.lastRunDays = hf.lastRunDays;
    horseCatalogue(runs, today, hf, row as unknown as HorseCatalogue);
    Object.assign(row, raceCtx, cardOf.get(r.horseId));

    const drawThirdCode = row.drawThirdCode;
    const ctx: RowContext = { off, race: links, cal, runner: f, draw: r.draw, drawThird: drawThirdCode - 1 };
    let latestVisible = hf.latestVisible;
    if (hf.latestVisible > rankedLatest) rankedLatest = hf.latestVisible;
    for (let ki = 0; ki < ENTITY_KINDS.length; ki++) {
      const k = ENTITY_KINDS[ki]!;
      // a key the card names but with no history yet is an empty history, not an unknown key
      const p = keyOf(plan, ki, j);
      const src = p < 0 ? undefined : (sources[p] ?? EMPTY_HISTORY);
      const seen = k.features(src, ctx, row);
      if (seen > latestVisible) latestVisible = seen;
      if (k.rankedInRace && seen > rankedLatest) rankedLatest = seen;
    }
    ownLatest.push(latestVisible);

    const res = byHorse.get(r.horseId);
    const pos = res ? res.position : 0;
    row.position = pos >= 1 && pos <= 9 ? pos : 0;
    row.status = result ? 'final' : 'provisional';
    rows.push(row);
  }

  const ranks = rankFields(rows);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    Object.assign(row, ranks[i]);
    row.computedAtUtc = isoUtc(result ? result.publishedAt : Math.max(raceLatest, ownLatest[i]!, rankedLatest));
  }
  return result ? rows.filter((row) => byHorse.has(row.horseId)) : rows;
}
