/**
 * Generated demo topology (courses.md): deterministic from the course, a centreline that runs the
 * course's way round, plausible metrics from the same pipeline, provenance `generated` and no
 * attribution claimed.
 */
import { describe, expect, it } from 'vitest';
import { COURSES, courseByCode } from '../../domain/courses.js';
import {
  COURSE_SHAPES,
  courseTopologyOf,
  fromWgs84,
  GENERATED_ORIGIN,
  generatedCourse,
  generatedMeasurement,
  generatedTopology,
  localProjection,
  type TopologyBlock,
  type XY,
  YARD_M,
} from '../../domain/topology/index.js';

const local = localProjection(GENERATED_ORIGIN);
// Each course's default block, computed once (the tests below read it several times).
const blocks = new Map<string, TopologyBlock>();
const topologyOf = (code: string): TopologyBlock => {
  let b = blocks.get(code);
  if (!b) blocks.set(code, (b = generatedTopology(courseByCode(code)!)));
  return b;
};
const metres = (code: string): XY[] => fromWgs84(generatedCourse(courseByCode(code)!).line.coordinates, local);
const signedArea = (p: readonly XY[]): number =>
  p.reduce((s, a, i) => {
    const b = p[(i + 1) % p.length]!;
    return s + (a[0] * b[1] - b[0] * a[1]) / 2;
  }, 0);

function segmentsCross(p: readonly XY[]): boolean {
  const n = p.length;
  const orient = (a: XY, b: XY, c: XY) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
  for (let i = 0; i < n; i++) {
    for (let j = i + 2; j < n; j++) {
      if (i === 0 && j === n - 1) continue;
      const [a, b, c, d] = [p[i]!, p[(i + 1) % n]!, p[j]!, p[(j + 1) % n]!];
      if (orient(a, b, c) * orient(a, b, d) < 0 && orient(c, d, a) * orient(c, d, b) < 0) return true;
    }
  }
  return false;
}

describe('generated topology', () => {
  it('is deterministic: the same course gives the same block, another course another', () => {
    const bath = courseByCode('bath')!;
    const a = generatedTopology(bath);
    const b = generatedTopology({ ...bath });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(generatedTopology(courseByCode('chester')!)).not.toEqual(a);
  });

  it.each(COURSES.filter((c) => c.direction === 'left' || c.direction === 'right').map((c) => [c.code, c.direction]))(
    '%s (%s-handed) runs the right way round',
    (code, direction) => {
      const c = courseByCode(code)!;
      const g = generatedCourse(c);
      const b = topologyOf(code);
      if (g.line.closed) {
        // Left-handed = counter-clockwise seen from above = positive signed area.
        expect(Math.sign(signedArea(metres(code)))).toBe(direction === 'left' ? 1 : -1);
      } else if (g.shape === 'straight') {
        // A straight course listed with a hand (Newmarket's Rowley Mile): no turn to check.
        expect(b.turns).toEqual([]);
      } else {
        // An open horseshoe: its turns all go the course's way.
        expect(b.turns.length).toBeGreaterThan(0);
        for (const t of b.turns) expect(t.hand).toBe(direction);
      }
      expect(b.direction).toBe(direction);
      const total = b.turns.reduce((s, t) => s + t.headingChangeDeg, 0);
      if (g.line.closed) expect(Math.abs(total - (direction === 'left' ? 360 : -360))).toBeLessThan(15);
    },
  );

  it('every course gets plausible, non-zero metrics and provenance generated', () => {
    for (const c of COURSES) {
      const g = generatedCourse(c);
      const b = topologyOf(c.code);
      expect(b.circuitLengthM).toBeGreaterThan(800);
      expect(b.circuitLengthM).toBeLessThan(4000);
      expect(Math.abs(b.circuitLengthM - g.circuitLengthM)).toBeLessThan(1);
      // The course list's shape and circuit length are used when it has them.
      if ('shape' in c) expect(g.shape).toBe(c.shape);
      if ('circuitLengthYards' in c && typeof c.circuitLengthYards === 'number' && g.shape !== 'straight') {
        expect(Math.abs(b.circuitLengthM - c.circuitLengthYards * YARD_M)).toBeLessThan(1);
      }
      expect(b.elevationRangeM).toBeGreaterThan(0);
      expect(b.totalClimbM + b.totalDescentM).toBeGreaterThan(0);
      expect(b.totalClimbM).toBeLessThan(60);
      expect(b.undulationIndex).toBeGreaterThan(0);
      expect(b.undulationIndex).toBeLessThan(60);
      if (g.line.closed) expect(b.totalClimbM).toBeCloseTo(b.totalDescentM, 1);
      expect(b.profile.length).toBeGreaterThan(15);
      expect(b.provenance.geometry).toEqual({
        source: 'generated',
        ways: [],
        description: `generated ${g.shape}, seed racing-topology:${c.code}`,
      });
      expect(b.provenance.elevation).toEqual({
        source: 'generated',
        products: ['generated'],
        tiles: [`generated:${c.code}`],
      });
      expect(b.provenance.measuredOn).toBe(c.open[0]![0]);
      expect(b.attribution).toEqual([]);
    }
    // Some courses are stiff and some flat: the relief varies by course.
    const climbs = COURSES.map((c) => topologyOf(c.code).totalClimbM);
    expect(Math.max(...climbs) - Math.min(...climbs)).toBeGreaterThan(10);
  });

  it('shapes follow the direction: straight courses are open straights, a figure of eight crosses itself', () => {
    const fontwell = courseByCode('fontwell')!;
    expect(fontwell.direction).toBe('figure-of-eight');
    expect(generatedCourse(fontwell).shape).toBe('figure-of-eight');
    expect(segmentsCross(metres('fontwell'))).toBe(true);
    const turns = generatedTopology(fontwell).turns;
    // Its loops turn opposite ways.
    expect(turns.some((t) => t.hand === 'left')).toBe(true);
    expect(turns.some((t) => t.hand === 'right')).toBe(true);
    for (const c of COURSES.filter((x) => x.direction === 'straight')) {
      const g = generatedCourse(c);
      expect(g.shape).toBe('straight');
      expect(g.line.closed).toBe(false);
      expect(generatedTopology(c).turns).toEqual([]);
    }
    expect(segmentsCross(metres('bath'))).toBe(false);
  });

  it('takes the shape and circuit length when given (metres or yards)', () => {
    const bath = courseByCode('bath')!;
    for (const shape of COURSE_SHAPES) {
      const b = generatedTopology(bath, { shape, circuitLengthM: 2000 });
      expect(Math.abs(b.circuitLengthM - 2000)).toBeLessThan(1);
      expect(generatedCourse(bath, { shape }).shape).toBe(shape);
    }
    const yards = generatedTopology(bath, { circuitLengthYards: 2640, shape: 'oval' });
    expect(Math.abs(yards.circuitLengthM - 2640 * YARD_M)).toBeLessThan(1);
    const oval = generatedTopology(bath, { shape: 'oval', circuitLengthM: 2000 });
    expect(oval.turns).toHaveLength(2);
    for (const t of oval.turns) expect(Math.abs(t.headingChangeDeg - 180)).toBeLessThan(1);
    expect(() => generatedTopology(bath, { circuitLengthM: 50 })).toThrow(
      expect.objectContaining({ reason: 'option_invalid' }),
    );
    expect(() => generatedTopology(bath, { circuitLengthM: 2000, circuitLengthYards: 2000 })).toThrow(
      expect.objectContaining({ reason: 'option_invalid' }),
    );
  });

  it('is placed at 0N 0E and maps onto the Course schema fields', () => {
    const m = generatedMeasurement(courseByCode('bath')!, { measuredOn: '2025-01-01' });
    const b = m.block;
    expect(Math.abs(b.start[0])).toBeLessThan(0.05);
    expect(Math.abs(b.start[1])).toBeLessThan(0.05);
    expect(b.provenance.measuredOn).toBe('2025-01-01');
    const record = courseTopologyOf(b, m.line);
    expect(record).toMatchObject({
      totalClimbM: b.totalClimbM,
      totalDescentM: b.totalDescentM,
      undulationIndex: b.undulationIndex,
      elevationRangeM: b.elevationRangeM,
      circuitLengthM: b.circuitLengthM,
      closed: b.closed,
      profile: b.profile,
      attribution: [],
      provenance: {
        geometrySource: 'generated',
        osmWays: [],
        elevationSource: 'generated',
        demProducts: ['generated'],
        demTiles: ['generated:bath'],
        measuredOn: '2025-01-01',
        method: b.provenance.method,
      },
    });
    expect(record.turns).toEqual(b.turns.map(({ hand: _hand, ...t }) => t));
    expect(record.centreline).toHaveLength(m.line.length);
    expect(record.centreline[0]![0]).toBeCloseTo(b.start[0], 7);
    expect(record.centreline[0]![1]).toBeCloseTo(b.start[1], 7);
  });
});
