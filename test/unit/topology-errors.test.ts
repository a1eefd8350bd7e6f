/**
 * Bad input fails with a TopologyError: the service's error family (code validation_failed, not
 * retriable) with a stable reason naming what is wrong, and a message a person can act on.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isRacingError } from '../../domain/errors.js';
import {
  gridFromFunction,
  isTopologyError,
  joinPieces,
  measureTopology,
  readAsciiGrid,
  readDem,
  readGeoJson,
  readGeometry,
  readHgt,
  readOsmXml,
  resolveCrs,
  type TopologyErrorReason,
} from '../../domain/topology/index.js';
import { fixtureText, HAVE_TILES, PLANE, planeLine, tilePath } from '../fixtures/topology/helpers.js';

const ON = { measuredOn: '2024-05-01' };

function reasonOf(f: () => unknown): { reason: TopologyErrorReason; message: string } {
  try {
    f();
  } catch (e) {
    expect(isTopologyError(e)).toBe(true);
    expect(isRacingError(e)).toBe(true);
    if (!isTopologyError(e)) throw e;
    expect(e.code).toBe('validation_failed');
    expect(e.retriable).toBe(false);
    expect(e.details?.['reason']).toBe(e.reason);
    return { reason: e.reason, message: e.message };
  }
  throw new Error('expected a TopologyError, nothing was thrown');
}

async function reasonOfAsync(f: () => Promise<unknown>): Promise<{ reason: TopologyErrorReason; message: string }> {
  try {
    await f();
  } catch (e) {
    if (!isTopologyError(e)) throw e;
    return { reason: e.reason, message: e.message };
  }
  throw new Error('expected a TopologyError, nothing was thrown');
}

const flat = gridFromFunction(
  { product: 'generated', tile: 'flat', crs: PLANE, ncols: 41, nrows: 41, x0: -1000, y0: 1000, dx: 50, dy: 50 },
  () => 10,
);

describe('geometry errors', () => {
  it('broken GeoJSON', () => {
    const text = fixtureText('epsom-hand-made-line.geojson');
    const e = reasonOf(() => readGeoJson(text.slice(0, text.length / 2)));
    expect(e.reason).toBe('geometry_parse');
    expect(e.message).toMatch(/not valid JSON/);
    expect(reasonOf(() => readGeoJson('[1, 2]')).reason).toBe('geometry_parse');
    expect(reasonOf(() => readGeoJson('{"type":"LineString","coordinates":[[0,0],["a",1]]}')).message).toMatch(
      /position 1 is not \[x, y\]/,
    );
    expect(reasonOf(() => readGeoJson('{"type":"LineString","coordinates":[[520000,150000],[0,0]]}')).message).toMatch(
      /not WGS84 longitude\/latitude/,
    );
  });

  it('GeoJSON with no LineString', () => {
    const e = reasonOf(() => readGeoJson(fixtureText('no-line.geojson')));
    expect(e.reason).toBe('geometry_no_line');
    expect(e.message).toMatch(/no LineString/);
    const tagged = JSON.stringify({
      type: 'Feature',
      properties: { leisure: 'track', sport: 'athletics' },
      geometry: {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [0.01, 0],
        ],
      },
    });
    expect(reasonOf(() => readGeoJson(tagged)).message).toMatch(/leisure=track \+ sport=horse_racing/);
  });

  it('a line of one point', () => {
    const one = '{"type":"LineString","coordinates":[[-0.25,51.31]]}';
    expect(reasonOf(() => readGeoJson(one)).reason).toBe('geometry_too_short');
    const twice = '{"type":"LineString","coordinates":[[-0.25,51.31],[-0.25,51.31]]}';
    expect(reasonOf(() => readGeoJson(twice)).reason).toBe('geometry_too_short');
    const e = reasonOf(() => measureTopology(planeLine([[0, 0]], false), [flat], ON));
    expect(e.reason).toBe('geometry_too_short');
    expect(e.message).toMatch(/two distinct points/);
  });

  it('pieces that branch', () => {
    const piece = (c: [number, number][]) => ({ coordinates: c, way: null, name: null, description: null });
    const e = reasonOf(() =>
      joinPieces(
        [
          piece([
            [0, 0],
            [0.01, 0],
          ]),
          piece([
            [0.01, 0],
            [0.02, 0],
          ]),
          piece([
            [0.01, 0],
            [0.01, 0.01],
          ]),
        ],
        'file',
      ),
    );
    expect(e.reason).toBe('geometry_branched');
    expect(e.message).toMatch(/3 line ends meet/);
  });

  it('OSM XML that is malformed, lacks a node, or has no racecourse way', () => {
    expect(reasonOf(() => readOsmXml('<osm><node id="1"></osm>')).reason).toBe('geometry_parse');
    const missing = `<osm><node id="1" lat="51" lon="-1"/><way id="5"><nd ref="1"/><nd ref="2"/>
      <tag k="leisure" v="track"/><tag k="sport" v="horse_racing"/></way></osm>`;
    expect(reasonOf(() => readOsmXml(missing)).message).toMatch(/way 5 refers to node 2/);
    const footway = `<osm><node id="1" lat="51" lon="-1"/><node id="2" lat="51.1" lon="-1"/>
      <way id="5"><nd ref="1"/><nd ref="2"/><tag k="highway" v="footway"/></way></osm>`;
    expect(reasonOf(() => readOsmXml(footway)).reason).toBe('geometry_no_line');
  });

  it('an unknown geometry format, and PBF', () => {
    expect(reasonOf(() => readGeometry('course.kml', new Uint8Array())).reason).toBe('geometry_parse');
    expect(reasonOf(() => readGeometry('britain.osm.pbf', new Uint8Array())).message).toMatch(/osmium cat/);
  });
});

describe('elevation errors', () => {
  it.skipIf(!HAVE_TILES)('a DEM that does not cover the line', async () => {
    const [line] = readGeoJson(fixtureText('epsom-hand-made-line.geojson'));
    const bath = await readDem('st76.zip', readFileSync(tilePath('st76')));
    const e = reasonOf(() => measureTopology(line!, bath, ON));
    expect(e.reason).toBe('dem_no_coverage');
    expect(e.message).toMatch(/do not cover the line at 51\.308\d+,-0\.258\d+ \(0 m from the start\)/);
  });

  it('a line that leaves the DEM part way', () => {
    const e = reasonOf(() =>
      measureTopology(
        planeLine(
          [
            [0, 0],
            [1500, 0],
          ],
          false,
        ),
        [flat],
        ON,
      ),
    );
    expect(e.reason).toBe('dem_no_coverage');
    expect(e.message).toMatch(/\(1010 m from the start\)/);
  });

  it('a line over a NODATA cell', () => {
    const holed = gridFromFunction(
      {
        product: 'other',
        tile: 'holed',
        crs: PLANE,
        ncols: 41,
        nrows: 41,
        x0: -1000,
        y0: 1000,
        dx: 50,
        dy: 50,
        nodata: -9999,
      },
      (x, y) => (x === 300 && y === 0 ? -9999 : 10),
    );
    const e = reasonOf(() =>
      measureTopology(
        planeLine(
          [
            [0, 0],
            [600, 0],
          ],
          false,
        ),
        [holed],
        ON,
      ),
    );
    expect(e.reason).toBe('dem_nodata');
    expect(e.message).toMatch(/void \(NODATA\) cell of holed .*\(260 m from the start\)/);
  });

  it('no DEM at all', () => {
    expect(
      reasonOf(() =>
        measureTopology(
          planeLine(
            [
              [0, 0],
              [10, 0],
            ],
            false,
          ),
          [],
          ON,
        ),
      ).reason,
    ).toBe('dem_no_coverage');
  });

  it('a corrupt .hgt size', () => {
    const e = reasonOf(() => readHgt(new Uint8Array(1000), 'N51W002.hgt'));
    expect(e.reason).toBe('dem_corrupt');
    expect(e.message).toMatch(/1000 bytes is not an SRTM tile/);
    expect(reasonOf(() => readHgt(new Uint8Array(1201 * 1201 * 2), 'tile.hgt')).reason).toBe('dem_parse');
  });

  it('an ASCII grid with too few values or a bad header', () => {
    const short = 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5\n';
    expect(reasonOf(() => readAsciiGrid(short, { tile: 's', crs: 'EPSG:27700' })).message).toMatch(
      /expected 2 rows x 3 columns = 6 values, found 5/,
    );
    const noSize = 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\n1 2\n';
    expect(reasonOf(() => readAsciiGrid(noSize, { tile: 's', crs: 'EPSG:27700' })).reason).toBe('dem_parse');
    const text = 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 x\n';
    expect(reasonOf(() => readAsciiGrid(text, { tile: 's', crs: 'EPSG:27700' })).message).toMatch(/value 2/);
  });

  it('a zip without a grid, and an unknown format', async () => {
    const { zipSync } = await import('fflate');
    const zip = zipSync({ 'readme.txt': new TextEncoder().encode('hello') });
    expect((await reasonOfAsync(() => readDem('x.zip', zip))).reason).toBe('dem_parse');
    expect((await reasonOfAsync(() => readDem('x.dem', new Uint8Array()))).reason).toBe('dem_parse');
  });
});

describe('reference system errors', () => {
  it('an unknown projection', () => {
    expect(reasonOf(() => resolveCrs('EPSG:99999')).reason).toBe('crs_unknown');
    expect(reasonOf(() => resolveCrs('+proj=nonsense +units=m')).reason).toBe('crs_unknown');
    expect(reasonOf(() => resolveCrs('Lambert 93')).reason).toBe('crs_unknown');
    const asc = 'ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n5\n';
    expect(reasonOf(() => readAsciiGrid(asc, { tile: 'a', crs: 'EPSG:99999' })).reason).toBe('crs_unknown');
    // An .asc with no .prj and no crs cannot be placed.
    expect(reasonOf(() => readAsciiGrid(asc, { tile: 'a' })).message).toMatch(/no reference system/);
    const geojson =
      '{"type":"LineString","crs":{"type":"name","properties":{"name":"EPSG:123456"}},"coordinates":[[0,0],[1,1]]}';
    expect(reasonOf(() => readGeoJson(geojson)).reason).toBe('crs_unknown');
  });
});

describe('option errors', () => {
  it('a measuredOn that is not a real date', () => {
    const line = planeLine(
      [
        [0, 0],
        [100, 0],
      ],
      false,
    );
    for (const d of ['2024-02-30', '2024-1-1', 'today', '']) {
      expect(reasonOf(() => measureTopology(line, [flat], { measuredOn: d })).reason).toBe('option_invalid');
    }
  });
});
