/**
 * Turns (courses.md, definition 4). From the heading of each 10 m segment between resampled points,
 * the curvature of segment j is the least-squares slope of heading against distance over the five
 * segments j-2..j+2 (a 50 m window; the window wraps on a circuit and is cut at the ends of an open
 * line). A turn is a maximal run of segments of one hand whose radius 1/|curvature| is under 400 m.
 */
import { wrapPi } from './polyline.js';
import type { TopologyTurn, XY } from './types.js';

export const TURN_RADIUS_M = 400;
const HALF_WINDOW = 2;

export interface Segments {
  /** heading of segment j (sample j to j+1), radians from east, counter-clockwise */
  readonly heading: number[];
  readonly length: number[];
  /** turning at vertex v, between segment v-1 and segment v (0 at the ends of an open line) */
  readonly turning: number[];
}

export function segmentsOf(points: readonly XY[], closed: boolean): Segments {
  const n = points.length;
  const m = closed ? n : n - 1;
  const heading: number[] = [];
  const length: number[] = [];
  for (let j = 0; j < m; j++) {
    const a = points[j]!;
    const b = points[(j + 1) % n]!;
    heading.push(Math.atan2(b[1] - a[1], b[0] - a[0]));
    length.push(Math.hypot(b[0] - a[0], b[1] - a[1]));
  }
  const turning: number[] = [];
  for (let v = 0; v < n; v++) {
    if (!closed && (v === 0 || v === n - 1)) turning.push(0);
    else turning.push(wrapPi(heading[v % m]! - heading[(v - 1 + m) % m]!));
  }
  return { heading, length, turning };
}

/** Curvature (1/m, left positive) of every segment. */
export function curvatures(seg: Segments, closed: boolean): number[] {
  const m = seg.heading.length;
  const half = closed ? Math.min(HALF_WINDOW, Math.floor((m - 1) / 2)) : HALF_WINDOW;
  const turnAt = (v: number): number => seg.turning[closed ? v % m : v]!;
  const out: number[] = [];
  for (let j = 0; j < m; j++) {
    const lo = closed ? -half : Math.max(-half, -j);
    const hi = closed ? half : Math.min(half, m - 1 - j);
    // Heading and midpoint position of each window segment relative to segment j, accumulated outward
    // through the turning at the vertices between, so headings never jump by 2 pi.
    const phi: number[] = new Array<number>(hi - lo + 1).fill(0);
    const pos: number[] = new Array<number>(hi - lo + 1).fill(0);
    for (let o = 1; o <= hi; o++) {
      const f = (j + o) % m;
      phi[o - lo] = phi[o - 1 - lo]! + turnAt(j + o);
      pos[o - lo] = pos[o - 1 - lo]! + seg.length[(j + o - 1) % m]! / 2 + seg.length[f]! / 2;
    }
    for (let o = -1; o >= lo; o--) {
      const b = (j + o + m) % m;
      phi[o - lo] = phi[o + 1 - lo]! - turnAt(b + 1);
      pos[o - lo] = pos[o + 1 - lo]! - seg.length[(b + 1) % m]! / 2 - seg.length[b]! / 2;
    }
    if (phi.length < 2) {
      out.push(0);
      continue;
    }
    const mp = pos.reduce((a, b) => a + b, 0) / pos.length;
    const mh = phi.reduce((a, b) => a + b, 0) / phi.length;
    let num = 0;
    let den = 0;
    for (let i = 0; i < phi.length; i++) {
      num += (pos[i]! - mp) * (phi[i]! - mh);
      den += (pos[i]! - mp) ** 2;
    }
    out.push(den === 0 ? 0 : num / den);
  }
  return out;
}

function severity(minRadius: number): 1 | 2 | 3 {
  if (minRadius >= 200) return 1;
  return minRadius >= 100 ? 2 : 3;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * Turns from resampled points. `distances` are the points' distances from the start; on a closed line
 * a turn running through the start is one turn whose endM exceeds the circuit length.
 */
export function findTurns(
  points: readonly XY[],
  distances: readonly number[],
  closed: boolean,
): { turns: TopologyTurn[]; curvature: number[] } {
  if (points.length < 2) return { turns: [], curvature: [] };
  const seg = segmentsOf(points, closed);
  const kappa = curvatures(seg, closed);
  const m = kappa.length;
  const sign = kappa.map((k) => (Math.abs(k) > 1 / TURN_RADIUS_M ? Math.sign(k) : 0));
  const runs: [number, number][] = [];
  if (closed && sign.every((s) => s !== 0 && s === sign[0])) {
    runs.push([0, m - 1]);
  } else {
    // On a circuit start scanning where no run can be in progress, so a run through the start stays whole.
    let from = 0;
    if (closed) while (from < m && sign[from] !== 0 && sign[from] === sign[(from - 1 + m) % m]) from++;
    let j = from;
    while (j < from + m) {
      const s = sign[j % m]!;
      if (s === 0) {
        j++;
        continue;
      }
      let e = j;
      while (e + 1 < from + m && sign[(e + 1) % m] === s) e++;
      runs.push([j, e]);
      j = e + 1;
    }
  }
  const n = points.length;
  const turns = runs.map(([a, b]): TopologyTurn => {
    const whole = b - a + 1 === m && closed;
    let change = 0;
    // Heading after the turn minus heading before it: the turning at vertices a..b+1 (each once).
    for (let v = a; v <= (whole ? a + m - 1 : b + 1); v++) change += seg.turning[v % n] ?? 0;
    let maxK = 0;
    let len = 0;
    for (let j = a; j <= b; j++) {
      maxK = Math.max(maxK, Math.abs(kappa[j % m]!));
      len += seg.length[j % m]!;
    }
    const start = distances[a % m]!;
    const minRadius = 1 / maxK;
    return {
      startM: Math.round(start),
      endM: Math.round(start + len),
      headingChangeDeg: round1((change * 180) / Math.PI),
      hand: change >= 0 ? 'left' : 'right',
      minRadiusM: round1(minRadius),
      severity: severity(minRadius),
    };
  });
  turns.sort((x, y) => x.startM - y.startM);
  return { turns, curvature: kappa };
}
