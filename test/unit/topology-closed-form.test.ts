/**
 * The measurement on fixtures whose answers are known in closed form (courses.md). Each expectation is
 * derived in a comment and computed here from the formula, not from the library. Lines are drawn on the
 * fixture plane (docs/topology.md: a transverse Mercator at 0°N 0°E), whose metres are ground metres
 * to 1e-8 within a few km of its centre.
 */
import { describe, expect, it } from 'vitest';
import { measureTopology, measureTopologyDetailed, type XY } from '../../domain/topology/index.js';
import { chordOval, ngon, planeGrid, planeLine, round1, round2, smoothingGain } from '../fixtures/topology/helpers.js';

const ON = { measuredOn: '2024-05-01' };

describe('a circle on a tilted plane', () => {
  // Regular 400-gon with 10 m sides (L = 4000 m), circumradius Rc = 5 / sin(pi/400), vertex k at angle
  // theta_k = -pi/2 + k*delta, delta = 2 pi / 400, starting at the southernmost vertex. The resampling
  // lands on the vertices. Plane h = 100 + g*y with g = 0.02 (2 %); bilinear interpolation reproduces a
  // plane exactly, so raw h_k = 100 + g*Rc*sin(theta_k). On a circuit the 5-sample window wraps, and
  // sum_{j=-2..2} sin(theta + j*delta) = sin(theta) * (1 + 2cos(delta) + 2cos(2 delta)), so smoothed
  // h_k = 100 + g*Rc*A*sin(theta_k), A = (1 + 2cos d + 2cos 2d)/5. It has one maximum (k = 200) and one
  // minimum (k = 0), so climb = descent = range = 2*g*Rc*A, and undulation = 2*climb / 4 km.
  const n = 400;
  const g = 0.02;
  const { points, radius } = ngon(n);
  const delta = (2 * Math.PI) / n;
  const a = smoothingGain(delta);
  const expected = 2 * g * radius * a;
  const dem = planeGrid((_x, y) => 100 + g * y, { minX: -700, maxX: 700, minY: -700, maxY: 700, cell: 25 });
  const m = measureTopologyDetailed(planeLine(points, true), [dem], { ...ON, direction: 'left' });

  it('climbs, descends and ranges 2*g*Rc*A', () => {
    expect(expected).toBeCloseTo(25.4588, 4);
    expect(m.raw.climbM).toBeCloseTo(expected, 9);
    expect(m.raw.descentM).toBeCloseTo(expected, 9);
    expect(m.raw.rangeM).toBeCloseTo(expected, 9);
    expect(m.block.totalClimbM).toBe(round1(expected));
    expect(m.block.totalDescentM).toBe(round1(expected));
    expect(m.block.elevationRangeM).toBe(round1(expected));
    expect(m.block.undulationIndex).toBe(round2((2 * expected) / 4));
    expect(m.block.circuitLengthM).toBe(4000);
    expect(m.block.closed).toBe(true);
    expect(m.block.orientedBy).toBe('signed-area');
  });

  it('smooths every sample as the formula says and profiles every 50 m', () => {
    expect(m.samples.smoothedHeightM).toHaveLength(n);
    m.samples.smoothedHeightM.forEach((h, k) => {
      expect(h).toBeCloseTo(100 + g * radius * a * Math.sin(-Math.PI / 2 + k * delta), 8);
    });
    expect(m.block.profile).toHaveLength(80);
    m.block.profile.forEach((p, j) => {
      expect(p.distanceM).toBe(50 * j);
      expect(p.heightM).toBe(round1(100 + g * radius * a * Math.sin(-Math.PI / 2 + 5 * j * delta)));
    });
  });

  it('finds no turn: the radius (636.6 m) is over 400 m', () => {
    expect(m.block.turns).toEqual([]);
  });
});

describe('circles around a cone', () => {
  // Cone h = 200 - 0.1*r on a 1 m grid. Bilinear interpolation error is at most
  // (h^2/8)(|f_xx| + |f_yy|) <= (1/8)(2*0.1/r) for cell size h = 1 and |f_xx|, |f_yy| <= 0.1/r.
  const k = 0.1;
  const cone = (x: number, y: number): number => 200 - k * Math.hypot(x, y);
  const n = 200; // 2000 m circuit, Rc = 318.3 m
  const errorBound = (rMin: number): number => (1 / 8) * ((2 * k) / rMin);

  it('centred on the apex: constant height, so climb 0 and range 0', () => {
    // Every vertex is at r = Rc, so the true height is constant; the samples can only differ by the
    // interpolation error e <= 7.9e-5 m. On a circuit climb = descent and climb + descent <= n * 2e, so
    // climb <= n*e = 0.016 m, which rounds to 0.0 (nearest-neighbour sampling would give metres).
    const { points, radius } = ngon(n);
    const e = errorBound(radius - 1);
    const dem = planeGrid(cone, { minX: -330, maxX: 330, minY: -330, maxY: 330, cell: 1 });
    const m = measureTopologyDetailed(planeLine(points, true), [dem], { ...ON, direction: 'left' });
    expect(m.raw.climbM).toBeLessThanOrEqual(n * e);
    expect(m.raw.rangeM).toBeLessThanOrEqual(2 * e);
    expect(m.block.totalClimbM).toBe(0);
    expect(m.block.elevationRangeM).toBe(0);
    for (const p of m.block.profile) expect(p.heightM).toBe(round1(200 - k * radius));
  });

  it('off-centre: climb is k times the smoothed spread of the apex distance', () => {
    // Circle centre at (d, 0), d = 150 < Rc, vertex k at angle theta_k = k*delta from the centre, so
    // the apex distance is r(theta) = sqrt(Rc^2 + d^2 + 2*Rc*d*cos theta): largest (Rc + d) at theta = 0,
    // smallest (Rc - d) at theta = pi, monotone between. Heights are 200 - k*r; the smoothed heights are
    // 200 - (k/5) * sum_{j=-2..2} r(theta + j*delta), also lowest at theta = 0 and highest at theta = pi,
    // so climb = descent = range = (k/5) * [sum_j r(j*delta) - sum_j r(pi + j*delta)]; undulation =
    // 2*climb/2 km. Unsmoothed it would be k*2d = 30 m exactly. Interpolation error <= 2e (r >= Rc - d).
    const d = 150;
    const { points, radius } = ngon(n, [d, 0], 0);
    const delta = (2 * Math.PI) / n;
    const r = (t: number): number => Math.sqrt(radius * radius + d * d + 2 * radius * d * Math.cos(t));
    const sum = (t: number): number => [-2, -1, 0, 1, 2].reduce((s, j) => s + r(t + j * delta), 0);
    const expected = (k / 5) * (sum(0) - sum(Math.PI));
    const dem = planeGrid(cone, { minX: -175, maxX: 475, minY: -325, maxY: 325, cell: 1 });
    const m = measureTopologyDetailed(planeLine(points, true), [dem], { ...ON, direction: 'left' });
    const tol = 2 * errorBound(radius - d - 1);
    expect(expected).toBeCloseTo(29.962, 3);
    expect(Math.abs(m.raw.climbM - expected)).toBeLessThanOrEqual(tol);
    expect(Math.abs(m.raw.descentM - expected)).toBeLessThanOrEqual(tol);
    expect(Math.abs(m.raw.rangeM - expected)).toBeLessThanOrEqual(tol);
    expect(m.block.totalClimbM).toBe(round1(expected));
    expect(m.block.elevationRangeM).toBe(round1(expected));
    expect(m.block.undulationIndex).toBe(round2((2 * expected) / 2));
    // The smoothing is visible in the raw figure: 30 - 29.962.
    expect(30 - m.raw.rangeM).toBeGreaterThan(0.03);
  });
});

describe('a straight over a sine-wave hill', () => {
  // h = 100 - a*cos(2 pi x / lambda), a = 5, lambda = 200, along y = 0 from x = 0 to 1000 (5 waves).
  // The 10 m grid has cell centres on x = 10i, so every sample sits on a centre (bilinear = exact).
  // delta = 2 pi * 10 / lambda = pi/10. Smoothed: inside (i = 2..98) 100 - a*A*cos(i*delta) with
  // A = (1 + 2cos d + 2cos 2d)/5; at the open ends the window shrinks symmetrically, so sample 0 and
  // sample 100 keep their raw value 100 - a (troughs) and samples 1, 99 average three. The sequence
  // rises from 100 - a to the first crest 100 + aA (x = 100), then swings between troughs 100 - aA and
  // crests 100 + aA (4 more rises), and ends falling to 100 - a. So
  //   climb = descent = a(1 + A) + 4 * 2aA,  range = a(1 + A),  undulation = 2*climb / 1 km.
  const amp = 5;
  const lambda = 200;
  const hill = (x: number): number => 100 - amp * Math.cos((2 * Math.PI * x) / lambda);
  const a = smoothingGain((2 * Math.PI * 10) / lambda);
  const climb = amp * (1 + a) + 4 * 2 * amp * a;
  const range = amp * (1 + a);
  const dem = planeGrid((x) => hill(x), { minX: -50, maxX: 1050, minY: -50, maxY: 50, cell: 10 });
  const line = planeLine(
    Array.from({ length: 11 }, (_, i): XY => [i * 100, 0]),
    false,
  );
  const m = measureTopologyDetailed(line, [dem], { ...ON, direction: 'straight' });

  it('climbs a(1+A) + 8aA and ranges a(1+A)', () => {
    expect(climb).toBeCloseTo(45.6813, 4);
    expect(m.raw.climbM).toBeCloseTo(climb, 6);
    expect(m.raw.descentM).toBeCloseTo(climb, 6);
    expect(m.raw.rangeM).toBeCloseTo(range, 6);
    expect(m.block.totalClimbM).toBe(round1(climb));
    expect(m.block.elevationRangeM).toBe(round1(range));
    expect(m.block.undulationIndex).toBe(round2(2 * climb));
    expect(m.block.circuitLengthM).toBe(1000);
    expect(m.block.closed).toBe(false);
    expect(m.block.orientedBy).toBe('as-drawn');
    expect(m.block.turns).toEqual([]);
  });

  it('shrinks the window symmetrically at the open ends', () => {
    const s = m.samples.smoothedHeightM;
    expect(s).toHaveLength(101);
    expect(s[0]).toBeCloseTo(hill(0), 8);
    expect(s[1]).toBeCloseTo((hill(0) + hill(10) + hill(20)) / 3, 8);
    expect(s[50]).toBeCloseTo(100 - amp * a * Math.cos(Math.PI * 5), 8);
    expect(s[100]).toBeCloseTo(hill(1000), 8);
    // Profile every 50 m; the end (1000 m) is a multiple of 50 and appears once.
    expect(m.block.profile.map((p) => p.distanceM)).toEqual(Array.from({ length: 21 }, (_, j) => 50 * j));
    expect(m.block.profile[1]!.heightM).toBe(round1(100 - amp * a * Math.cos(Math.PI / 2)));
  });

  it('orients a straight towards the winning post', () => {
    // The post at the x = 0 end: the line is run from x = 1000 to x = 0, so the start is at x = 1000.
    const post = planeLine([[0, 0]], false).coordinates[0]!;
    const r = measureTopology(line, [dem], { ...ON, direction: 'straight', winningPost: post });
    const end = planeLine([[1000, 0]], false).coordinates[0]!;
    expect(r.orientedBy).toBe('winning-post');
    expect(r.start[0]).toBeCloseTo(end[0], 6);
    expect(r.start[1]).toBeCloseTo(end[1], 6);
  });
});

describe('turns', () => {
  const flat = planeGrid(() => 50, { minX: -800, maxX: 800, minY: -800, maxY: 800, cell: 50 });

  // On a regular N-gon with 10 m sides every vertex turns by delta = 2 pi / N. In every 50 m window the
  // five segment headings are phi_j = j*delta at midpoints 10j (j = -2..2), so the least-squares slope
  // is delta/10 per m and the radius 10/delta = 10N / (2 pi). Every segment turns: one turn from 0 to L
  // with heading change N*delta = 360 degrees.
  it.each([
    [60, 3],
    [100, 2],
    [150, 1],
  ] as const)('a %i-gon circle is one 360-degree turn of radius 10N/2pi, severity %i', (n, severity) => {
    const radius = (10 * n) / (2 * Math.PI);
    const b = measureTopology(planeLine(ngon(n).points, true), [flat], { ...ON, direction: 'left' });
    expect(b.turns).toEqual([
      { startM: 0, endM: 10 * n, headingChangeDeg: 360, hand: 'left', minRadiusM: round1(radius), severity },
    ]);
  });

  it('a right-handed circle turns -360', () => {
    const b = measureTopology(planeLine(ngon(100).points, true), [flat], { ...ON, direction: 'right' });
    expect(b.turns).toHaveLength(1);
    expect(b.turns[0]).toMatchObject({ headingChangeDeg: -360, hand: 'right' });
  });

  it('a circle of radius 477 m (300-gon) has no turn', () => {
    expect(measureTopology(planeLine(ngon(300).points, true), [flat], { ...ON, direction: 'left' }).turns).toEqual([]);
  });

  // Oval: straights S = 200 m, semicircles of K chords of 10 m. Along a semicircle the turning is pi/K
  // per vertex (pi/2K at the two junctions), so inside it the radius is 10K/pi. Window of the last
  // straight segment before the bend: headings 0, 0, 0, pi/2K, 3pi/2K at -20..20 m, slope =
  // (1*pi/2K + 2*3pi/2K)/(10*10) = 7pi/(200K): radius 9.09K m < 400 for K < 44, so it turns; the one
  // before has slope pi/(100K): radius 31.8K > 400 for K > 12.6, so it does not. Symmetrically at the
  // exit. So a bend starting at s0 is a turn from s0 - 10 to s0 + 10K + 10, heading change exactly
  // 180 degrees (pi/2K + (K-1)*pi/K + pi/2K).
  it('an oval is two 180-degree turns (left-handed, K = 20: radius 63.7 m, sharp)', () => {
    const k = 20;
    const { points, length } = chordOval(200, k);
    const b = measureTopology(planeLine(points, true), [flat], { ...ON, direction: 'left' });
    const r = round1((10 * k) / Math.PI);
    expect(b.circuitLengthM).toBe(length);
    expect(b.turns).toEqual([
      { startM: 190, endM: 200 + 10 * k + 10, headingChangeDeg: 180, hand: 'left', minRadiusM: r, severity: 3 },
      // The second bend ends 10 m past the start: the turn runs through it and ends beyond the circuit length.
      { startM: 400 + 10 * k - 10, endM: length + 10, headingChangeDeg: 180, hand: 'left', minRadiusM: r, severity: 3 },
    ]);
  });

  it('a right-handed oval (K = 40: radius 127.3 m, moderate) turns -180 twice', () => {
    const k = 40;
    const { points, length } = chordOval(200, k);
    const mirrored = points.map(([x, y]): XY => [x, -y]); // clockwise
    const b = measureTopology(planeLine(mirrored, true), [flat], { ...ON, direction: 'right' });
    const r = round1((10 * k) / Math.PI);
    expect(b.turns).toEqual([
      { startM: 190, endM: 200 + 10 * k + 10, headingChangeDeg: -180, hand: 'right', minRadiusM: r, severity: 2 },
      {
        startM: 400 + 10 * k - 10,
        endM: length + 10,
        headingChangeDeg: -180,
        hand: 'right',
        minRadiusM: r,
        severity: 2,
      },
    ]);
  });

  it('orients a circuit drawn the wrong way round by its signed area', () => {
    const { points } = chordOval(200, 20);
    const clockwise = [points[0]!, ...points.slice(1).reverse()];
    const asLeft = measureTopology(planeLine(clockwise, true), [flat], { ...ON, direction: 'left' });
    expect(asLeft.orientedBy).toBe('signed-area');
    expect(asLeft.turns.map((t) => t.headingChangeDeg)).toEqual([180, 180]);
    const asDrawn = measureTopology(planeLine(clockwise, true), [flat], ON);
    expect(asDrawn.orientedBy).toBe('as-drawn');
    expect(asDrawn.direction).toBeNull();
    expect(asDrawn.turns.map((t) => t.headingChangeDeg)).toEqual([-180, -180]);
  });

  it('orients an open horseshoe by its net turning, and leaves a nearly straight line as drawn', () => {
    // Half the K = 20 oval: the southern straight, the eastern bend, the northern straight, drawn the
    // wrong way round (clockwise); as a left-handed course it is reversed, and turns +180.
    const { points } = chordOval(200, 20);
    const u = points.slice(0, 20 + 20 + 21);
    const b = measureTopology(planeLine([...u].reverse(), false), [flat], { ...ON, direction: 'left' });
    expect(b.orientedBy).toBe('net-turning');
    expect(b.turns.map((t) => [t.hand, t.headingChangeDeg])).toEqual([['left', 180]]);
    // 20 degrees of net turning is not enough to tell a direction.
    const bent: XY[] = [
      [-500, 0],
      [0, 0],
      [500, 500 * Math.tan((20 * Math.PI) / 180)],
    ];
    const s = measureTopology(planeLine(bent, false), [flat], { ...ON, direction: 'right' });
    expect(s.orientedBy).toBe('as-drawn');
    expect(s.turns.map((t) => t.hand)).toEqual(['left']);
  });

  it('starts a circuit at the winning post', () => {
    // Post 3 m outside the middle of the northern straight (0, R): distances are now counted from
    // there, so the western bend starts at 100 - 10 = 90 m and the eastern one at 100 + 200 + 200 - 10.
    const k = 20;
    const { points, radius } = chordOval(200, k);
    const post = planeLine([[0, radius + 3]], false).coordinates[0]!;
    const b = measureTopology(planeLine(points, true), [flat], { ...ON, direction: 'left', winningPost: post });
    const startOnLine = planeLine([[0, radius]], false).coordinates[0]!;
    expect(b.start[0]).toBeCloseTo(startOnLine[0], 6);
    expect(b.start[1]).toBeCloseTo(startOnLine[1], 6);
    expect(b.turns.map((t) => [t.startM, t.endM])).toEqual([
      [90, 100 + 10 * k + 10],
      [100 + 10 * k + 200 - 10, 100 + 10 * k + 200 + 10 * k + 10],
    ]);
  });

  it('refuses a winning post 80 m from the circuit', () => {
    const { points, radius } = chordOval(200, 20);
    const post = planeLine([[0, radius + 80]], false).coordinates[0]!;
    expect(() =>
      measureTopology(planeLine(points, true), [flat], { ...ON, direction: 'left', winningPost: post }),
    ).toThrow(expect.objectContaining({ reason: 'winning_post_off_line' }));
  });
});
