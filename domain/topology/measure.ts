/**
 * measureTopology: courses.md's definitions applied to one course line and a set of elevation grids.
 * Pure: no I/O, no clock (the date measured is an input). docs/topology.md states every choice.
 */
import { converter, localProjection, WGS84 } from './crs.js';
import { DemSampler, PRODUCTS } from './dem-grid.js';
import { TopologyError } from './errors.js';
import { nearestPoint, netTurning, resample, signedArea } from './polyline.js';
import { findTurns } from './turns.js';
import type { CourseLine, ElevationGrid, LonLat, ProfilePoint, RunningDirection, TopologyBlock, XY } from './types.js';
import { roundHalfAway } from '../rounding.js';

export const STEP_M = 10;
export const SMOOTHING_SAMPLES = 5;
export const PROFILE_STEP_M = 50;
/** A winning post further than this from a circuit is a mistake, not a point to start from. */
export const WINNING_POST_MAX_OFFSET_M = 50;
/** An open line must turn at least this much (30 degrees) for its turning to tell its direction. */
const MIN_NET_TURNING_RAD = Math.PI / 6;
export const OSM_ATTRIBUTION = '© OpenStreetMap contributors';
export const METHOD =
  'racing-topology/1: 10 m resampling in a local transverse Mercator; 5-sample centred moving average ' +
  '(wrapping on circuits, shrinking at open ends); least-squares curvature over 50 m; turns under 400 m radius';

export interface MeasureOptions {
  /** YYYY-MM-DD: the date measured, recorded in provenance */
  readonly measuredOn: string;
  /** the course's running direction; null or absent = unknown, measured as drawn */
  readonly direction?: RunningDirection | null;
  /** the winning post (WGS84): a circuit starts there; an open line is oriented to end there */
  readonly winningPost?: LonLat | null;
}

export interface TopologyMeasurement {
  readonly block: TopologyBlock;
  /** the line as measured: oriented, starting at the start, WGS84 */
  readonly line: LonLat[];
  /** the measuring projection (proj4) */
  readonly localCrs: string;
  /** unrounded figures, for checks */
  readonly raw: { lengthM: number; climbM: number; descentM: number; rangeM: number };
  /** one entry per resampled point */
  readonly samples: {
    distanceM: number[];
    xy: XY[];
    lonLat: LonLat[];
    rawHeightM: number[];
    smoothedHeightM: number[];
  };
  /** curvature (1/m, left positive) of each 10 m segment */
  readonly curvature: number[];
}

export function measureTopology(
  line: CourseLine,
  dems: readonly ElevationGrid[],
  options: MeasureOptions,
): TopologyBlock {
  return measureTopologyDetailed(line, dems, options).block;
}

export function measureTopologyDetailed(
  line: CourseLine,
  dems: readonly ElevationGrid[],
  options: MeasureOptions,
): TopologyMeasurement {
  checkDate(options.measuredOn);
  if (dems.length === 0) throw new TopologyError('dem_no_coverage', 'no elevation model given');
  const lonLat = line.coordinates;
  if (lonLat.length === 0) throw new TopologyError('geometry_too_short', 'the line has no points');
  // The measuring projection is centred on the middle of the line's bounding box.
  const lons = lonLat.map((p) => p[0]);
  const lats = lonLat.map((p) => p[1]);
  const centre: LonLat = [(Math.min(...lons) + Math.max(...lons)) / 2, (Math.min(...lats) + Math.max(...lats)) / 2];
  const localCrs = localProjection(centre);
  const local = converter(localCrs, WGS84);
  let pts: XY[] = dedupe(lonLat.map((p) => local.inverse(p)));
  let closed = line.closed;
  if (closed && pts.length >= 2 && dist(pts[0]!, pts[pts.length - 1]!) < 1e-3) pts.pop();
  if (closed && pts.length < 3) closed = false;
  if (pts.length < 2) {
    throw new TopologyError('geometry_too_short', `a line needs two distinct points; this one has ${pts.length}`, {
      details: { name: line.name },
    });
  }

  const post = options.winningPost ? local.inverse(options.winningPost) : null;
  const direction = options.direction ?? null;
  const oriented = orient(pts, closed, direction, post);
  pts = oriented.points;
  if (closed && post) pts = startAt(pts, post);

  const rs = resample(pts, closed, STEP_M);
  const sampleLonLat = rs.points.map((p) => local.forward(p));
  const sampler = new DemSampler(dems);
  const usedGrids = new Set<number>();
  const rawHeight = sampleLonLat.map((p, i) => {
    const r = sampler.heightAt(p);
    if (!r.ok) {
      const where = `${p[1].toFixed(6)},${p[0].toFixed(6)} (${rs.distances[i]!.toFixed(0)} m from the start)`;
      throw r.why === 'outside'
        ? new TopologyError('dem_no_coverage', `the elevation models given do not cover the line at ${where}`, {
            details: { lon: p[0], lat: p[1], distanceM: rs.distances[i], tiles: dems.map((g) => g.tile) },
          })
        : new TopologyError('dem_nodata', `the line crosses a void (NODATA) cell of ${r.tile} at ${where}`, {
            details: { lon: p[0], lat: p[1], distanceM: rs.distances[i], tile: r.tile },
          });
    }
    for (const g of r.grids) usedGrids.add(g);
    return r.height;
  });
  const smooth = smoothHeights(rawHeight, closed);

  let climb = 0;
  let descent = 0;
  const pairs = closed ? smooth.length : smooth.length - 1;
  for (let i = 0; i < pairs; i++) {
    const d = smooth[(i + 1) % smooth.length]! - smooth[i]!;
    if (d > 0) climb += d;
    else descent -= d;
  }
  const min = Math.min(...smooth);
  const max = Math.max(...smooth);
  const lengthKm = rs.length / 1000;

  const profile: ProfilePoint[] = [];
  const every = PROFILE_STEP_M / STEP_M;
  smooth.forEach((h, i) => {
    const last = !closed && i === smooth.length - 1;
    if (i % every === 0 || last)
      profile.push({ distanceM: roundHalfAway(rs.distances[i]!, 1), heightM: roundHalfAway(h, 1) });
  });

  const { turns, curvature } = findTurns(rs.points, rs.distances, closed);
  const used = [...usedGrids].sort((a, b) => a - b).map((i) => dems[i]!);
  const generatedDem = used.every((g) => g.product === 'generated');
  const attribution: string[] = [];
  if (line.geometry.source === 'openstreetmap') attribution.push(OSM_ATTRIBUTION);
  for (const g of used) {
    const a = PRODUCTS[g.product].attribution;
    if (a && !attribution.includes(a)) attribution.push(a);
  }
  const start = local.forward(pts[0]!);
  const block: TopologyBlock = {
    circuitLengthM: roundHalfAway(rs.length, 1),
    closed,
    direction,
    orientedBy: oriented.by,
    start: [roundHalfAway(start[0], 7), roundHalfAway(start[1], 7)],
    totalClimbM: roundHalfAway(climb, 1),
    totalDescentM: roundHalfAway(descent, 1),
    elevationRangeM: roundHalfAway(max - min, 1),
    minHeightM: roundHalfAway(min, 1),
    maxHeightM: roundHalfAway(max, 1),
    undulationIndex: lengthKm > 0 ? roundHalfAway((climb + descent) / lengthKm, 2) : 0,
    turns,
    profile,
    provenance: {
      geometry: line.geometry,
      elevation: {
        source: generatedDem ? 'generated' : 'dem',
        products: [...new Set(used.map((g) => PRODUCTS[g.product].name))],
        tiles: [...new Set(used.map((g) => g.tile))].sort(),
      },
      measuredOn: options.measuredOn,
      method: METHOD,
    },
    attribution,
  };
  return {
    block,
    line: pts.map((p) => local.forward(p)),
    localCrs,
    raw: { lengthM: rs.length, climbM: climb, descentM: descent, rangeM: max - min },
    samples: {
      distanceM: rs.distances,
      xy: rs.points,
      lonLat: sampleLonLat,
      rawHeightM: rawHeight,
      smoothedHeightM: smooth,
    },
    curvature,
  };
}

/**
 * Centred moving average over SMOOTHING_SAMPLES. A circuit has no ends, so the window wraps (the
 * result does not depend on where the circuit is cut). At an open end the window shrinks
 * symmetrically (half-width min(2, i, n-1-i)), so it stays centred and a uniform slope stays exact.
 */
export function smoothHeights(h: readonly number[], closed: boolean): number[] {
  const n = h.length;
  const half = (SMOOTHING_SAMPLES - 1) / 2;
  return h.map((_, i) => {
    const w = closed ? Math.min(half, Math.floor((n - 1) / 2)) : Math.min(half, i, n - 1 - i);
    let sum = 0;
    for (let k = -w; k <= w; k++) sum += h[(((i + k) % n) + n) % n]!;
    return sum / (2 * w + 1);
  });
}

function orient(
  pts: XY[],
  closed: boolean,
  direction: RunningDirection | null,
  post: XY | null,
): { points: XY[]; by: TopologyBlock['orientedBy'] } {
  const reversed = (): XY[] => (closed ? [pts[0]!, ...pts.slice(1).reverse()] : [...pts].reverse());
  if (!closed && post) {
    // A race ends at the winning post, so an open line runs towards it.
    const toStart = dist(post, pts[0]!);
    const toEnd = dist(post, pts[pts.length - 1]!);
    return { points: toStart < toEnd ? reversed() : pts, by: 'winning-post' };
  }
  if (direction === 'left' || direction === 'right') {
    const wantLeft = direction === 'left';
    if (closed) {
      const area = signedArea(pts);
      return { points: area !== 0 && area > 0 !== wantLeft ? reversed() : pts, by: 'signed-area' };
    }
    // An open line that hardly turns (a straight listed with a hand) says nothing about its direction.
    const turning = netTurning(pts);
    if (Math.abs(turning) >= MIN_NET_TURNING_RAD) {
      return { points: turning > 0 !== wantLeft ? reversed() : pts, by: 'net-turning' };
    }
  }
  // Straight: as given. Figure of eight: its two loops turn opposite ways, so neither area nor turning
  // tells the direction; it is measured as drawn (give the winning post to orient an open line).
  return { points: pts, by: 'as-drawn' };
}

/** Rotates a closed line so it starts at the point nearest the winning post. */
function startAt(pts: XY[], post: XY): XY[] {
  const near = nearestPoint(pts, true, post);
  if (near.distance > WINNING_POST_MAX_OFFSET_M) {
    throw new TopologyError(
      'winning_post_off_line',
      `the winning post is ${near.distance.toFixed(1)} m from the line (at most ${WINNING_POST_MAX_OFFSET_M} m)`,
      { details: { distanceM: near.distance } },
    );
  }
  const i = near.segment;
  const n = pts.length;
  const onVertex = dist(near.point, pts[i]!) < 1e-3 ? i : dist(near.point, pts[(i + 1) % n]!) < 1e-3 ? (i + 1) % n : -1;
  if (onVertex >= 0) return [...pts.slice(onVertex), ...pts.slice(0, onVertex)];
  return [near.point, ...pts.slice(i + 1), ...pts.slice(0, i + 1)];
}

function dedupe(pts: XY[]): XY[] {
  const out: XY[] = [];
  for (const p of pts) if (out.length === 0 || dist(out[out.length - 1]!, p) >= 1e-3) out.push(p);
  return out;
}

function dist(a: XY, b: XY): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

function checkDate(d: string): void {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) {
    throw new TopologyError('option_invalid', `measuredOn must be a real date in YYYY-MM-DD form, not "${d}"`);
  }
}
