/**
 * Plausible course outlines for the generated demo topology, in metres around the origin, running
 * counter-clockwise (left-handed); the caller mirrors them for right-handed courses. Round shapes are a
 * belt around pulleys: straights along the outer tangents, arcs around each pulley.
 */
import type { XY } from './types.js';

export type CourseShape =
  'oval' | 'triangle' | 'pear' | 'horseshoe' | 'undulating-circuit' | 'straight' | 'figure-of-eight';
export const COURSE_SHAPES: readonly CourseShape[] = [
  'oval',
  'triangle',
  'pear',
  'horseshoe',
  'undulating-circuit',
  'straight',
  'figure-of-eight',
];

export interface Pulley {
  readonly c: XY;
  readonly r: number;
}

/** Arc vertices every this many degrees (2.6 m apart on a 150 m radius): far finer than the 10 m step. */
const ARC_STEP_RAD = Math.PI / 180;

/**
 * The closed belt around convex-placed pulleys given counter-clockwise. Starts at `startFraction` of the
 * way along the longest straight (the home straight, where the winning post stands).
 */
export function belt(pulleys: readonly Pulley[], startFraction = 0.75): XY[] {
  const n = pulleys.length;
  // Outer tangent from pulley i to i+1: the unit normal n (pointing outwards, to the right of travel)
  // with n.(c_j - c_i) = r_i - r_j; its tangent points are c_i + r_i n and c_j + r_j n.
  const normals: XY[] = [];
  for (let i = 0; i < n; i++) {
    const a = pulleys[i]!;
    const b = pulleys[(i + 1) % n]!;
    const dx = b.c[0] - a.c[0];
    const dy = b.c[1] - a.c[1];
    const d = Math.hypot(dx, dy);
    const cos = (a.r - b.r) / d;
    const sin = -Math.sqrt(Math.max(0, 1 - cos * cos));
    const ux = dx / d;
    const uy = dy / d;
    normals.push([cos * ux - sin * uy, cos * uy + sin * ux]);
  }
  const straights: [XY, XY][] = normals.map((nv, i) => {
    const a = pulleys[i]!;
    const b = pulleys[(i + 1) % n]!;
    return [
      [a.c[0] + a.r * nv[0], a.c[1] + a.r * nv[1]],
      [b.c[0] + b.r * nv[0], b.c[1] + b.r * nv[1]],
    ];
  });
  const longest = straights.reduce((best, s, i) => (segLen(s) > segLen(straights[best]!) ? i : best), 0);
  const out: XY[] = [];
  for (let k = 0; k < n; k++) {
    const i = (longest + k) % n;
    const [from, to] = straights[i]!;
    if (k === 0) out.push(lerp(from, to, startFraction));
    else out.push(from);
    out.push(to);
    // Arc round the next pulley, counter-clockwise from this straight's normal to the next one's.
    const p = pulleys[(i + 1) % n]!;
    const a0 = Math.atan2(normals[i]![1], normals[i]![0]);
    let a1 = Math.atan2(normals[(i + 1) % n]![1], normals[(i + 1) % n]![0]);
    while (a1 <= a0) a1 += 2 * Math.PI;
    const steps = Math.max(1, Math.ceil((a1 - a0) / ARC_STEP_RAD));
    for (let s = 1; s < steps; s++) {
      const a = a0 + ((a1 - a0) * s) / steps;
      out.push([p.c[0] + p.r * Math.cos(a), p.c[1] + p.r * Math.sin(a)]);
    }
  }
  // Back along the home straight to the start.
  const [hsFrom] = straights[longest]!;
  out.push(hsFrom);
  return out;
}

/** An open U: a back straight, a 180-degree left turn, a home straight (Epsom-like horseshoe). */
export function horseshoe(radius: number, back: number, home: number): XY[] {
  const out: XY[] = [[-back, -radius]];
  for (let s = 0; s <= 180; s++) {
    const a = -Math.PI / 2 + (Math.PI * s) / 180;
    out.push([radius * Math.cos(a), radius * Math.sin(a)]);
  }
  out.push([-home, radius]);
  return out;
}

/** A straight course along the x axis, with a slight bend (most straights are not ruler-straight). */
export function straight(length: number, bend: number): XY[] {
  const out: XY[] = [];
  for (let s = 0; s <= 20; s++) {
    const x = (length * s) / 20 - length / 2;
    out.push([x, bend * (1 - (2 * x) / length) ** 2]);
  }
  return out;
}

/** A figure of eight (lemniscate of Gerono): crosses itself at the origin; its loops turn opposite ways. */
export function figureOfEight(halfLength: number, halfWidth: number): XY[] {
  const out: XY[] = [];
  const steps = 720;
  for (let s = 0; s < steps; s++) {
    const t = (2 * Math.PI * s) / steps;
    out.push([halfLength * Math.sin(t), 2 * halfWidth * Math.sin(t) * Math.cos(t)]);
  }
  return out;
}

export function polylineLength(points: readonly XY[], closed: boolean): number {
  let len = 0;
  for (let i = 1; i < points.length; i++)
    len += Math.hypot(points[i]![0] - points[i - 1]![0], points[i]![1] - points[i - 1]![1]);
  if (closed && points.length > 1) {
    const a = points[points.length - 1]!;
    len += Math.hypot(points[0]![0] - a[0], points[0]![1] - a[1]);
  }
  return len;
}

function segLen(s: [XY, XY]): number {
  return Math.hypot(s[1][0] - s[0][0], s[1][1] - s[0][1]);
}

function lerp(a: XY, b: XY, t: number): XY {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}
