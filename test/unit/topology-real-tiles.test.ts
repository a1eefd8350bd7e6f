/**
 * The pipeline on the three real OS Terrain 50 tiles in ../shared/data/dem (SOURCE.md there): the zip
 * and ASCII grid reader against the .asc text read plainly, the British National Grid -> WGS84
 * transform against the Ordnance Survey's own formulas, bilinear sampling on real cells, a plausibility
 * check at Bath, and hand-made lines (labelled as such, not real courses) measured end to end.
 */
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BNG,
  DemSampler,
  type ElevationGrid,
  fromWgs84,
  measureTopologyDetailed,
  readDem,
  readGeoJson,
  readOsmXml,
  resolveCrs,
  smoothHeights,
  toWgs84,
  type XY,
} from '../../domain/topology/index.js';
import {
  bngToOsgb36,
  fixtureText,
  HAVE_TILES,
  osgb36ToWgs84,
  parseAscPlainly,
  round1,
  tilePath,
  vincentyM,
} from '../fixtures/topology/helpers.js';

const OS_ATTRIBUTION = 'Contains OS data © Crown copyright and database right 2013';

if (!HAVE_TILES) {
  if (process.env.CI === 'true')
    throw new Error('CI must have ../shared/data/dem/os-terrain-50 (the real elevation tiles)');
  console.warn('[topology] ../shared/data/dem/os-terrain-50 is absent: the real-tile tests are SKIPPED');
}

/** Metres between two WGS84 points (small distances). */
const groundM = (p: readonly [number, number], q: readonly [number, number]): number => vincentyM(p, q);

describe.skipIf(!HAVE_TILES)('OS Terrain 50 tiles', () => {
  const tiles: Record<string, { grid: ElevationGrid; text: string }> = {};

  beforeAll(async () => {
    for (const t of ['st76', 'tq25', 'so92']) {
      const bytes = readFileSync(tilePath(t));
      const grids = await readDem(`${t}.zip`, bytes);
      expect(grids).toHaveLength(1);
      const entries = unzipSync(bytes);
      tiles[t] = { grid: grids[0]!, text: new TextDecoder().decode(entries[`${t.toUpperCase()}.asc`]!) };
    }
  });

  it.each([
    ['st76', 370000, 160000],
    ['tq25', 520000, 150000],
    ['so92', 390000, 220000],
  ] as const)('%s: header, georeferencing and cells match the .asc text', (t, e, n) => {
    const { grid, text } = tiles[t]!;
    const plain = parseAscPlainly(text);
    expect(plain.header).toMatchObject({ ncols: 200, nrows: 200, xllcorner: e, yllcorner: n, cellsize: 50 });
    expect(plain.rows).toHaveLength(200);
    expect(grid).toMatchObject({
      product: 'os-terrain-50',
      tile: t.toUpperCase(),
      crsName: 'EPSG:27700',
      ncols: 200,
      nrows: 200,
    });
    expect(grid.crs).toBe(BNG);
    // Cell centres: half a cell in from the lower-left corner; row 0 is the northern row.
    expect(grid.x0).toBe(e + 25);
    expect(grid.y0).toBe(n + 10000 - 25);
    expect(grid.dx).toBe(50);
    for (const [r, c] of [
      [0, 0],
      [0, 199],
      [1, 7],
      [57, 123],
      [100, 100],
      [199, 0],
      [199, 199],
    ] as const) {
      expect(grid.values[r * 200 + c]).toBe(plain.rows[r]![c]);
    }
  });

  it('the .prj (ESRI WKT without datum shift) resolves to EPSG:27700 with the OSGB36 Helmert shift', () => {
    const prj = new TextDecoder().decode(unzipSync(readFileSync(tilePath('st76')))['ST76.prj']!);
    expect(prj).not.toMatch(/TOWGS84/);
    const crs = resolveCrs(prj);
    expect(crs.name).toBe('EPSG:27700');
    expect(crs.def).toContain('+towgs84=446.448,-125.157,542.06,0.15,0.247,0.842,-20.489');
  });

  it("proj4's National Grid projection reproduces the OS worked example (Caister water tower)", () => {
    // OS guide, annex C.1: 52°39'27.2531"N 1°43'4.5177"E on Airy 1830 -> E 651409.903, N 313177.270.
    const lat = 52 + 39 / 60 + 27.2531 / 3600;
    const lon = 1 + 43 / 60 + 4.5177 / 3600;
    // Without its datum shift the definition maps OSGB36 lon/lat (no transformation) to the grid.
    const gridOnly = BNG.replace(/\+towgs84=\S+ /, '');
    const [e, n] = fromWgs84([[lon, lat]], gridOnly)[0]!;
    expect(e).toBeCloseTo(651409.903, 3);
    expect(n).toBeCloseTo(313177.27, 3);
    const [x, y] = toWgs84([[651409.903, 313177.27]], gridOnly)[0]!;
    expect(x).toBeCloseTo(lon, 7);
    expect(y).toBeCloseTo(lat, 7);
    // ...and with the OS formulas used below as the independent reference.
    const os = bngToOsgb36(651409.903, 313177.27);
    expect(os.lon).toBeCloseTo(lon, 7);
    expect(os.lat).toBeCloseTo(lat, 7);
  });

  it.each([
    [370000, 160000],
    [380000, 170000],
    [520000, 150000],
    [400000, 230000],
  ] as const)('BNG %i %i -> WGS84 agrees with the OS formulas + Helmert to 1 m', (e, n) => {
    const [mine] = toWgs84([[e, n]], 'EPSG:27700');
    const osgb = bngToOsgb36(e, n);
    const ref = osgb36ToWgs84(osgb.lat, osgb.lon);
    expect(groundM(mine!, [ref.lon, ref.lat])).toBeLessThan(1);
    // Without the datum shift the answer would be about 100 m off: the test can tell.
    expect(groundM([osgb.lon, osgb.lat], [ref.lon, ref.lat])).toBeGreaterThan(50);
  });

  it('bilinear sampling gives the cell value at a centre and the mean between centres', () => {
    // The points go BNG -> WGS84 -> BNG; proj4's datum shift round trip is good to about 1 mm, which
    // moves a height by at most slope x 1 mm: 2 mm of tolerance. Half a cell off would cost decimetres.
    const { grid } = tiles['st76']!;
    const sampler = new DemSampler([grid]);
    const v = (r: number, c: number): number => grid.values[r * 200 + c]!;
    const at = (x: number, y: number): number => {
      const res = sampler.heightAt(toWgs84([[x, y]], 'EPSG:27700')[0]!);
      if (!res.ok) throw new Error(`no height at ${x} ${y}`);
      return res.height;
    };
    for (const [r, c] of [
      [10, 10],
      [57, 123],
      [150, 42],
    ] as const) {
      const x = grid.x0 + 50 * c;
      const y = grid.y0 - 50 * r;
      // Cells on a slope, so that a mean differs from either cell.
      expect(Math.abs(v(r, c) - v(r, c + 1))).toBeGreaterThan(0.1);
      expect(Math.abs(v(r, c) - v(r + 1, c))).toBeGreaterThan(0.1);
      expect(Math.abs(at(x, y) - v(r, c))).toBeLessThan(2e-3);
      expect(Math.abs(at(x + 25, y) - (v(r, c) + v(r, c + 1)) / 2)).toBeLessThan(2e-3);
      expect(Math.abs(at(x, y - 25) - (v(r, c) + v(r + 1, c)) / 2)).toBeLessThan(2e-3);
      expect(Math.abs(at(x + 25, y - 25) - (v(r, c) + v(r, c + 1) + v(r + 1, c) + v(r + 1, c + 1)) / 4)).toBeLessThan(
        2e-3,
      );
      // A quarter of the way: weights 3/4 and 1/4.
      expect(Math.abs(at(x + 12.5, y) - (0.75 * v(r, c) + 0.25 * v(r, c + 1)))).toBeLessThan(2e-3);
    }
  });

  it('Bath racecourse (Lansdown) stands at about 238 m', () => {
    // Published: "780 ft (238 m)". The plateau around 51.4215 N, 2.407 W (inside tile ST76).
    const sampler = new DemSampler([tiles['st76']!.grid]);
    const h = sampler.heightAt([-2.407, 51.4215]);
    expect(h.ok && h.height).toBeGreaterThan(225);
    expect(h.ok && h.height).toBeLessThan(245);
    const around: number[] = [];
    for (let dlat = -0.004; dlat <= 0.004; dlat += 0.002) {
      for (let dlon = -0.006; dlon <= 0.006; dlon += 0.002) {
        const r = sampler.heightAt([-2.407 + dlon, 51.4215 + dlat]);
        if (r.ok) around.push(r.height);
      }
    }
    expect(Math.max(...around)).toBeGreaterThan(230);
    expect(Math.max(...around)).toBeLessThan(245);
  });

  it('a hand-made line over Epsom (TQ25) is measured end to end, matching an independent computation', async () => {
    const [line] = readGeoJson(fixtureText('epsom-hand-made-line.geojson'));
    expect(line!.geometry).toEqual({
      source: 'file',
      ways: [],
      description: expect.stringContaining('hand-made test line, not a real course') as unknown as string,
    });
    const m = measureTopologyDetailed(line!, [tiles['tq25']!.grid], {
      measuredOn: '2024-05-01',
      direction: 'straight',
    });

    // Length: the geodesic (Vincenty) lengths of the two segments.
    const c = line!.coordinates;
    const length = groundM(c[0]!, c[1]!) + groundM(c[1]!, c[2]!);
    expect(Math.abs(m.raw.lengthM - length)).toBeLessThan(0.01);
    expect(m.block.circuitLengthM).toBe(round1(length));

    // Heights: walk the line in National Grid metres (scaled to ground metres by the segment's share
    // of the geodesic length), interpolate the cells read plainly from the .asc, smooth as defined.
    const plain = parseAscPlainly(tiles['tq25']!.text).rows;
    const bng: XY[] = fromWgs84(c, 'EPSG:27700');
    const seg = [groundM(c[0]!, c[1]!), groundM(c[1]!, c[2]!)];
    const at = (s: number): XY => {
      const i = s <= seg[0]! ? 0 : 1;
      const t = i === 0 ? s / seg[0]! : (s - seg[0]!) / seg[1]!;
      const [a, b] = [bng[i]!, bng[i + 1]!];
      return [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    };
    const height = ([x, y]: XY): number => {
      const fc = (x - 520025) / 50;
      const fr = (159975 - y) / 50;
      const c0 = Math.floor(fc);
      const r0 = Math.floor(fr);
      const [tx, ty] = [fc - c0, fr - r0];
      const v = (r: number, cc: number): number => plain[r]![cc]!;
      return (
        (1 - tx) * (1 - ty) * v(r0, c0) +
        tx * (1 - ty) * v(r0, c0 + 1) +
        (1 - tx) * ty * v(r0 + 1, c0) +
        tx * ty * v(r0 + 1, c0 + 1)
      );
    };
    const distances = [...Array.from({ length: Math.floor(length / 10) + 1 }, (_, k) => 10 * k), length];
    expect(m.samples.distanceM).toHaveLength(distances.length);
    const raw = distances.map((s) => height(at(s)));
    raw.forEach((h, i) => expect(Math.abs(m.samples.rawHeightM[i]! - h)).toBeLessThan(0.02));
    const smooth = smoothHeights(raw, false);
    let climb = 0;
    let descent = 0;
    for (let i = 1; i < smooth.length; i++) {
      const d = smooth[i]! - smooth[i - 1]!;
      if (d > 0) climb += d;
      else descent -= d;
    }
    expect(Math.abs(m.raw.climbM - climb)).toBeLessThan(0.05);
    expect(Math.abs(m.raw.descentM - descent)).toBeLessThan(0.05);
    expect(Math.abs(m.raw.rangeM - (Math.max(...smooth) - Math.min(...smooth)))).toBeLessThan(0.05);
    expect(m.block.totalClimbM).toBeGreaterThan(10);
    expect(m.block.totalClimbM).toBeLessThan(80);

    expect(m.block.provenance).toMatchObject({
      elevation: { source: 'dem', products: ['OS Terrain 50'], tiles: ['TQ25'] },
      measuredOn: '2024-05-01',
    });
    // Only the sources used: OS heights, no OpenStreetMap geometry.
    expect(m.block.attribution).toEqual([OS_ATTRIBUTION]);
  });

  it('an OSM XML oval in two ways (hand-made) joins, orients and measures on TQ25', () => {
    const lines = readOsmXml(fixtureText('test-oval-two-ways.osm'));
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line.closed).toBe(true);
    expect(line.coordinates).toHaveLength(40);
    expect(line.geometry).toEqual({
      source: 'openstreetmap',
      ways: [
        { id: 1001, version: 3 },
        { id: 1002, version: 7 },
      ],
      description: null,
    });
    const m = measureTopologyDetailed(line, [tiles['tq25']!.grid], { measuredOn: '2024-05-01', direction: 'left' });
    // Stadium of straights 300 m and 10-degree chords on radius 120 m (in grid metres; OS grid scale
    // 0.99979 here): perimeter 600 + 36 * 2 * 120 * sin(5 deg), in ground metres.
    const perimeter = (600 + 36 * 240 * Math.sin((5 * Math.PI) / 180)) / 0.999787;
    expect(Math.abs(m.raw.lengthM - perimeter)).toBeLessThan(0.1);
    expect(m.block.orientedBy).toBe('signed-area');
    expect(m.block.turns).toHaveLength(2);
    for (const t of m.block.turns) {
      expect(t.hand).toBe('left');
      expect(Math.abs(t.headingChangeDeg - 180)).toBeLessThan(1);
      expect(t.minRadiusM).toBeGreaterThan(110);
      expect(t.minRadiusM).toBeLessThan(130);
      expect(t.severity).toBe(2);
    }
    expect(m.raw.climbM).toBeCloseTo(m.raw.descentM, 9);
    expect(m.block.attribution).toEqual(['© OpenStreetMap contributors', OS_ATTRIBUTION]);
  });

  it('a line on one tile does not use, or credit, the other tiles given', () => {
    const [line] = readGeoJson(fixtureText('epsom-hand-made-line.geojson'));
    const all = ['st76', 'so92', 'tq25'].map((t) => tiles[t]!.grid);
    const b = measureTopologyDetailed(line!, all, { measuredOn: '2024-05-01' }).block;
    expect(b.provenance.elevation.tiles).toEqual(['TQ25']);
  });
});
