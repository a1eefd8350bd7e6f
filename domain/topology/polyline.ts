/**
 * Planar polyline geometry in the measuring projection (metres): signed area, net turning, nearest
 * point, and resampling at a fixed step along the line.
 */
import type { XY } from './types.js';

/** Angle wrapped into (-pi, pi]. */
export function wrapPi(a: number): number {
  let r = a % (2 * Math.PI);
  if (r <= -Math.PI) r += 2 * Math.PI;
  if (r > Math.PI) r -= 2 * Math.PI;
  return r;
}

/** Shoelace area of the ring through the points: positive when they run counter-clockwise. */
export function signedArea(points: readonly XY[]): number {
  let a = 0;
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const q = points[(i + 1) % points.length]!;
    a += p[0] * q[1] - q[0] * p[1];
  }
  return a / 2;
}

/** Sum of the heading changes along an open line (radians, left positive). */
export function netTurning(points: readonly XY[]): number {
  let total = 0;
  let prev: number | undefined;
  for (let i = 1; i < points.length; i++) {
    const h = Math.atan2(points[i]![1] - points[i - 1]![1], points[i]![0] - points[i - 1]![0]);
    if (prev !== undefined) total += wrapPi(h - prev);
    prev = h;
  }
  return total;
}

export function lineLength(points: readonly XY[], closed: boolean): number {
  let len = 0;
  const n = points.length;
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const p = points[i]!;
    const q = points[(i + 1) % n]!;
    len += Math.hypot(q[0] - p[0], q[1] - p[1]);
  }
  return len;
}

/** The point of the line nearest to p: its segment (from vertex i), position on it and distance. */
export function nearestPoint(
  points: readonly XY[],
  closed: boolean,
  p: XY,
): { segment: number; point: XY; distance: number } {
  let best = { segment: 0, point: points[0]!, distance: Infinity };
  const n = points.length;
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const a = points[i]!;
    const b = points[(i + 1) % n]!;
    const vx = b[0] - a[0];
    const vy = b[1] - a[1];
    const len2 = vx * vx + vy * vy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / len2));
    const q: XY = [a[0] + t * vx, a[1] + t * vy];
    const d = Math.hypot(p[0] - q[0], p[1] - q[1]);
    if (d < best.distance) best = { segment: i, point: q, distance: d };
  }
  return best;
}

/** Lengths within this of a whole step count as whole (float noise of the projection round trip). */
const EPS_M = 1e-3;

export interface Resampled {
  readonly points: XY[];
  /** distance of each point from the start */
  readonly distances: number[];
  readonly length: number;
}

/**
 * Points every `step` metres along the line from its first vertex. A closed line gets ceil(L/step)
 * points (the last segment, back to the start, may be shorter); an open line gets floor(L/step) + 1
 * points, plus its end point when the length is not a whole number of steps.
 */
export function resample(points: readonly XY[], closed: boolean, step: number): Resampled {
  const n = points.length;
  const segs = closed ? n : n - 1;
  const length = lineLength(points, closed);
  const targets: number[] = [];
  if (closed) {
    const count = Math.max(1, Math.ceil((length - EPS_M) / step));
    for (let k = 0; k < count; k++) targets.push(k * step);
  } else {
    const count = Math.floor((length + EPS_M) / step) + 1;
    for (let k = 0; k < count; k++) targets.push(Math.min(k * step, length));
    if (length - (count - 1) * step > EPS_M) targets.push(length);
  }
  const out: XY[] = [];
  let seg = 0;
  let segStart = 0;
  for (const s of targets) {
    // Walk to the segment holding distance s (targets ascend, so the walk is linear overall).
    while (seg < segs) {
      const a = points[seg]!;
      const b = points[(seg + 1) % n]!;
      const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
      if (s <= segStart + len || seg === segs - 1) {
        const t = len === 0 ? 0 : Math.max(0, Math.min(1, (s - segStart) / len));
        out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
        break;
      }
      segStart += len;
      seg++;
    }
  }
  return { points: out, distances: targets, length };
}
