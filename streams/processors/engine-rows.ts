/**
 * Rows: assembling a race's analytics rows from its own card and result, the horse's history and one
 * entity key per indexed kind (looping over the entity table), then the ranks within the race (family
 * R, a second stage over the race's rows). Synchronous: the caller first makes what a set of races'
 * rows read resident (`EngineResidency.readyRowsMany`).
 */
import avro from 'avsc';
import type { AnalyticsRow, Course, RaceCardRunner, RaceResultRunner } from '../../domain/avro-types.generated.js';
import { distanceBucket, distanceBucketCode, disciplineCode, goingCode, surfaceCode } from '../../domain/codes.js';
import { ENTITY_KINDS, type RowContext } from '../../domain/features/entity-table.js';
import { type HorseCatalogue, horseCatalogue } from '../../domain/features/horse-catalogue.js';
import { horseFeatures, type TodayContext } from '../../domain/features/horse.js';
import { raceContextFeatures, runnerCardFeatures } from '../../domain/features/race-context.js';
import { rankFields } from '../../domain/features/ranks.js';
import { EMPTY_HISTORY, type WindowSource } from '../../domain/features/window-source.js';
import type { SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import { isoUtc } from '../../domain/time.js';
import { avroBytes } from '../avro-bytes.js';
import { loadSchemaText, WIRE_HEADER_BYTES } from '../serde.js';
import { effectiveCard, keyOf, latestCard, type LinkPlan, linkPlan } from './engine-links.js';
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

/** Sets every field of a row back to its schema default (one store per field, in schema order). */
const resetRow = new Function(
  'r',
  Object.entries(blankRow())
    .map(([k, v]) => `r[${JSON.stringify(k)}] = ${JSON.stringify(v)};`)
    .join('\n'),
) as (row: AnalyticsRow) => void;

/** rows a RowPool keeps however small its groups (a live race's runners) */
const MIN_POOLED_ROWS = 64;

/**
 * Row objects lent to `computeRowsMany` and taken back once the caller is done with a group's rows (it
 * encoded them): a catch-up's groups hold thousands of 200-field rows at once, which outlived the young
 * generation and were collected as old garbage. Reused, they stay put, and a row's number fields are
 * stored into the boxes they already have.
 */
export class RowPool {
  private readonly free: AnalyticsRow[] = [];
  private readonly lent: AnalyticsRow[] = [];
  /** how many rows the pool keeps: the largest group's need lately (decaying once the groups are smaller) */
  private keep = 0;

  take(): AnalyticsRow {
    const row = this.free.pop() ?? newRow();
    this.lent.push(row);
    return row;
  }

  /**
   * Takes back every row lent since the last call: the caller keeps none of them (nor anything read from
   * one that a later row could change). Keeps about as many as the largest group lately needed.
   */
  reclaim(): void {
    const need = this.lent.length;
    for (const row of this.lent) {
      resetRow(row);
      this.free.push(row);
    }
    this.lent.length = 0;
    this.keep = Math.max(need, MIN_POOLED_ROWS, Math.floor(this.keep * 0.95));
    if (this.free.length > this.keep) this.free.length = this.keep;
  }
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

/** One race's part of `computeRowsMany` between its stages. */
interface RaceRows {
  readonly race: RaceState;
  readonly rows: AnalyticsRow[];
  /** the row's horse's position in the race's links (keyOf's runner) */
  readonly linkAt: number[];
  readonly ctx: RowContext[];
  /** the latest visibleAt each row read, so far */
  readonly ownLatest: number[];
  /** the latest visibleAt of what family R reads in every row of the race, so far */
  rankedLatest: number;
  readonly raceLatest: number;
  readonly plan: LinkPlan;
  readonly sources: readonly (WindowSource | undefined)[];
  readonly byHorse: Map<string, RaceResultRunner>;
}

/**
 * The current rows of each race (final once its result is in: its starters'), ordered by horseId; what
 * they read must be resident (`EngineResidency.readyRowsMany` over the races' links). A race's rows are the
 * same whichever races are computed beside it (a row depends only on the state).
 *
 * Each entity kind's features are computed for all their rows together, grouped by
 * entity key: the rows of one jockey, trainer, sire or course read the same months one after another,
 * while they are in the processor's caches. Asked one race after another, every row reads its keys' state
 * cold, and that reading, not the arithmetic, is most of a window's cost (a row's windows asked twice took
 * hardly longer than once: performance-history.md, the thirty-fourth session).
 */
export function computeRowsMany(
  state: EngineState,
  residency: EngineResidency,
  races: readonly RaceState[],
  cal: SnapshotCalendar,
  pool?: RowPool,
): AnalyticsRow[][] {
  const work: (RaceRows | null)[] = [];
  for (const race of races) work.push(raceRows(state, residency, race, cal, pool));
  entityFeatures(work);
  const out: AnalyticsRow[][] = [];
  for (const w of work) out.push(w ? finishRows(w) : []);
  return out;
}

/** A race's rows with everything but the entity kinds' features (entityFeatures) and the ranks (finishRows). */
function raceRows(
  state: EngineState,
  residency: EngineResidency,
  race: RaceState,
  cal: SnapshotCalendar,
  pool: RowPool | undefined,
): RaceRows | null {
  const latest = latestCard(race.cards);
  if (!latest) return null;
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
  const linkAt: number[] = [];
  const ctxs: RowContext[] = [];
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
    const row = pool ? pool.take() : newRow();
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
    ctxs.push({ off, race: links, cal, runner: f, draw: r.draw, drawThird: drawThirdCode - 1 });
    if (hf.latestVisible > rankedLatest) rankedLatest = hf.latestVisible;
    ownLatest.push(hf.latestVisible);

    const res = byHorse.get(r.horseId);
    const pos = res ? res.position : 0;
    row.position = pos >= 1 && pos <= 9 ? pos : 0;
    row.status = result ? 'final' : 'provisional';
    rows.push(row);
    linkAt.push(j);
  }
  return { race, rows, linkAt, ctx: ctxs, ownLatest, rankedLatest, raceLatest, plan, sources, byHorse };
}

/**
 * Each entity kind's features of every row of these races, kind by kind, the rows of one key together (in
 * the order their key is first met). A key the card names but with no history yet is an empty history,
 * not an unknown key.
 */
function entityFeatures(work: readonly (RaceRows | null)[]): void {
  let n = 0;
  for (const w of work) if (w) n += w.rows.length;
  // each row's race and place in it (the same for every kind)
  const racePos = new Int32Array(n);
  const rowPos = new Int32Array(n);
  for (let wi = 0, t = 0; wi < work.length; wi++) {
    const w = work[wi];
    if (!w) continue;
    for (let i = 0; i < w.rows.length; i++, t++) {
      racePos[t] = wi;
      rowPos[t] = i;
    }
  }
  const src: (WindowSource | undefined)[] = new Array(n);
  const group = new Int32Array(n);
  const order = new Int32Array(n);
  for (let ki = 0; ki < ENTITY_KINDS.length; ki++) {
    const k = ENTITY_KINDS[ki]!;
    const groups = new Map<WindowSource | undefined, number>();
    for (let t = 0; t < n; t++) {
      const w = work[racePos[t]!]!;
      const p = keyOf(w.plan, ki, w.linkAt[rowPos[t]!]!);
      const s = p < 0 ? undefined : (w.sources[p] ?? EMPTY_HISTORY);
      let g = groups.get(s);
      if (g === undefined) groups.set(s, (g = groups.size));
      src[t] = s;
      group[t] = g;
    }
    // the rows by group, in the order of each group's first row (a counting sort)
    const start = new Int32Array(groups.size + 1);
    for (let q = 0; q < n; q++) start[group[q]! + 1]!++;
    for (let g = 0; g < groups.size; g++) start[g + 1]! += start[g]!;
    for (let q = 0; q < n; q++) order[start[group[q]!]!++] = q;
    for (let o = 0; o < n; o++) {
      const q = order[o]!;
      const w = work[racePos[q]!]!;
      const i = rowPos[q]!;
      const seen = k.features(src[q], w.ctx[i]!, w.rows[i]!);
      if (seen > w.ownLatest[i]!) w.ownLatest[i] = seen;
      if (k.rankedInRace && seen > w.rankedLatest) w.rankedLatest = seen;
    }
  }
}

/** The ranks within the race (family R) and each row's computedAtUtc; a final race's starters only. */
function finishRows(w: RaceRows): AnalyticsRow[] {
  const { rows, race } = w;
  const result = race.result;
  const ranks = rankFields(rows);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    Object.assign(row, ranks[i]);
    row.computedAtUtc = isoUtc(result ? result.publishedAt : Math.max(w.raceLatest, w.ownLatest[i]!, w.rankedLatest));
  }
  return result ? rows.filter((row) => w.byHorse.has(row.horseId)) : rows;
}
