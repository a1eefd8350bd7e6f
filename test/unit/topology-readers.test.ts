/**
 * The input readers on small hand-built inputs: GeoJSON shapes and tag filtering, joining pieces end to
 * end, OSM XML, ESRI ASCII grids, SRTM .hgt, GeoTIFF (written with the geotiff package) and zips, and
 * the reference systems (points whose projected coordinates are known exactly).
 */
import { zipSync } from 'fflate';
import { fromArrayBuffer, writeArrayBuffer } from 'geotiff';
import { describe, expect, it } from 'vitest';
import {
  type CourseLine,
  DemSampler,
  fromWgs84,
  gridFromFunction,
  measureTopology,
  readAsciiGrid,
  readDem,
  readGeoJson,
  readGeometry,
  readGeoTiff,
  readGeoTiffSource,
  readHgt,
  readOsmXml,
  resolveCrs,
  toWgs84,
  type XY,
} from '../../domain/topology/index.js';
import { fixtureText, PLANE, planeLine } from '../fixtures/topology/helpers.js';

const BNG_WKT =
  'PROJCS["British_National_Grid",GEOGCS["GCS_OSGB_1936",DATUM["D_OSGB_1936",SPHEROID["Airy_1830",6377563.396,299.3249646]],' +
  'PRIMEM["Greenwich",0],UNIT["Degree",0.017453292519943295]],PROJECTION["Transverse_Mercator"],' +
  'PARAMETER["False_Easting",400000],PARAMETER["False_Northing",-100000],PARAMETER["Central_Meridian",-2],' +
  'PARAMETER["Scale_Factor",0.999601272],PARAMETER["Latitude_Of_Origin",49],UNIT["Meter",1]]';

const P = (lon: number, lat: number): [number, number] => [lon, lat];
const lineString = (coords: [number, number][], properties: Record<string, unknown> = {}, id?: string) => ({
  type: 'Feature',
  ...(id ? { id } : {}),
  properties,
  geometry: { type: 'LineString', coordinates: coords },
});

describe('GeoJSON', () => {
  it('reads a bare LineString, a Feature and a FeatureCollection alike', () => {
    const coords = [P(-1, 51), P(-1, 51.001), P(-0.999, 51.002)];
    const bare = readGeoJson(JSON.stringify({ type: 'LineString', coordinates: coords }));
    const feature = readGeoJson(JSON.stringify(lineString(coords, { name: 'Back straight' })));
    const fc = readGeoJson(JSON.stringify({ type: 'FeatureCollection', features: [lineString(coords)] }));
    for (const r of [bare, feature, fc]) {
      expect(r).toHaveLength(1);
      expect(r[0]!.coordinates).toEqual(coords);
      expect(r[0]!.closed).toBe(false);
      expect(r[0]!.geometry.source).toBe('file');
    }
    expect(feature[0]!.name).toBe('Back straight');
  });

  it('joins pieces end to end, reversing pieces that run the other way, and detects a closed circuit', () => {
    // A square ring a-b-c-d-a cut into three pieces: [a,b], [c,b] (reversed), [c,d,a].
    const [a, b, c, d] = [P(0.0, 0.0), P(0.01, 0.0), P(0.01, 0.01), P(0.0, 0.01)];
    const ring = readGeoJson(
      JSON.stringify({
        type: 'MultiLineString',
        coordinates: [
          [a, b],
          [c, b],
          [c, d, a],
        ],
      }),
    );
    expect(ring).toHaveLength(1);
    expect(ring[0]!.closed).toBe(true);
    expect(ring[0]!.coordinates).toEqual([a, b, c, d]);
    // Open: [b,c] then [a,b] (prepend needed) -> walked from the free end a.
    const open = readGeoJson(
      JSON.stringify({
        type: 'MultiLineString',
        coordinates: [
          [b, c],
          [b, a],
        ],
      }),
    );
    expect(open[0]!.coordinates).toEqual([a, b, c]);
    expect(open[0]!.closed).toBe(false);
  });

  it('keeps only leisure=track + sport=horse_racing when the features are tagged, with OSM ids and versions', () => {
    const fc = {
      type: 'FeatureCollection',
      features: [
        lineString([P(0, 0), P(0.01, 0)], { leisure: 'track', sport: 'horse_racing', '@id': 'way/42', '@version': 5 }),
        lineString([P(0.01, 0), P(0.02, 0)], { leisure: 'track', sport: 'equestrian;horse_racing' }, 'w43'),
        lineString([P(0.02, 0), P(0.03, 0)], { highway: 'track' }, 'w44'),
        lineString([P(0.03, 0), P(0.04, 0)], { leisure: 'track', sport: 'athletics' }, 'w45'),
        lineString([P(0.05, 0), P(0.06, 0)], {
          leisure: 'track',
          sport: 'horse_racing',
          '@type': 'way',
          '@id': 46,
          '@version': 2,
        }),
      ],
    };
    const r = readGeoJson(JSON.stringify(fc));
    expect(r).toHaveLength(2);
    expect(r[1]!.geometry.ways).toEqual([{ id: 46, version: 2 }]);
    expect(r[0]!.coordinates).toEqual([P(0, 0), P(0.01, 0), P(0.02, 0)]);
    expect(r[0]!.geometry).toEqual({
      source: 'openstreetmap',
      ways: [
        { id: 42, version: 5 },
        { id: 43, version: null },
      ],
      description: null,
    });
    // Filtering by way id.
    expect(readGeoJson(JSON.stringify(fc), { wayIds: [43] })[0]!.coordinates).toEqual([P(0.01, 0), P(0.02, 0)]);
  });

  it('separate pieces become separate lines; a Polygon ring is a closed line', () => {
    const two = readGeoJson(
      JSON.stringify({
        type: 'MultiLineString',
        coordinates: [
          [P(0, 0), P(0.01, 0)],
          [P(0, 0.01), P(0.01, 0.01)],
        ],
      }),
    );
    expect(two).toHaveLength(2);
    const poly = readGeoJson(
      JSON.stringify({ type: 'Polygon', coordinates: [[P(0, 0), P(0.01, 0), P(0.01, 0.01), P(0, 0)]] }),
    );
    expect(poly[0]!.closed).toBe(true);
    expect(poly[0]!.coordinates).toHaveLength(3);
  });

  it('honours a legacy crs member (EPSG:27700)', () => {
    const bng: [number, number][] = [
      [521500, 158000],
      [522000, 158400],
    ];
    const r = readGeoJson(
      JSON.stringify({
        type: 'LineString',
        crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::27700' } },
        coordinates: bng,
      }),
    );
    const expected = toWgs84(bng, 'EPSG:27700');
    r[0]!.coordinates.forEach((p, i) => {
      expect(p[0]).toBeCloseTo(expected[i]![0], 9);
      expect(p[1]).toBeCloseTo(expected[i]![1], 9);
    });
    expect(r[0]!.coordinates[0]![1]).toBeCloseTo(51.308, 3);
  });

  it('picks the reader by file name', () => {
    const bytes = new TextEncoder().encode(fixtureText('epsom-hand-made-line.geojson'));
    expect(readGeometry('x.geojson', bytes)).toHaveLength(1);
    expect(readGeometry('x.osm', new TextEncoder().encode(fixtureText('test-oval-two-ways.osm')))[0]!.closed).toBe(
      true,
    );
  });
});

describe('OSM XML', () => {
  it('joins the racecourse ways of the fixture and ignores the footway', () => {
    const [line] = readOsmXml(fixtureText('test-oval-two-ways.osm'));
    expect(line!.name).toBe('Test Oval');
    expect(line!.closed).toBe(true);
    // The two ways share their end nodes only: 21 + 21 nodes, two shared, 40 distinct points.
    expect(line!.coordinates).toHaveLength(40);
    expect(new Set(line!.coordinates.map((p) => p.join())).size).toBe(40);
  });

  it('skips deleted objects and resolves nodes by id', () => {
    const xml = `<osm version="0.6">
      <node id="1" lat="51.0" lon="-1.0"/><node id="2" lat="51.001" lon="-1.0"/><node id="3" lat="51.002" lon="-1.001"/>
      <way id="7" version="2"><nd ref="1"/><nd ref="2"/><nd ref="3"/><tag k="leisure" v="track"/><tag k="sport" v="horse_racing"/></way>
      <way id="8" action="delete"><nd ref="3"/><nd ref="1"/><tag k="leisure" v="track"/><tag k="sport" v="horse_racing"/></way>
    </osm>`;
    const [line] = readOsmXml(xml);
    expect(line!.coordinates).toEqual([P(-1, 51), P(-1, 51.001), P(-1.001, 51.002)]);
    expect(line!.geometry.ways).toEqual([{ id: 7, version: 2 }]);
  });
});

describe('ESRI ASCII grid', () => {
  it('reads xllcenter/yllcenter and NODATA', () => {
    const g = readAsciiGrid(fixtureText('small-centre-nodata.asc'), { tile: 'small', crs: 'EPSG:27700' });
    // Centre origin: column 0 at x = 1000, southern row at y = 2000, so row 0 (north) at 2020.
    expect(g).toMatchObject({
      ncols: 4,
      nrows: 3,
      x0: 1000,
      y0: 2020,
      dx: 10,
      dy: 10,
      nodata: -9999,
      product: 'other',
    });
    expect(Array.from(g.values)).toEqual([1, 2, 3, 4, 5, 6, -9999, 8, 9, 10, 11, 12]);
    const s = new DemSampler([g]);
    const at = (x: number, y: number) => s.heightAt(toWgs84([[x, y]], 'EPSG:27700')[0]!);
    const r = at(1005, 2015); // between 1, 2, 5, 6
    expect(r.ok && r.height).toBeCloseTo(3.5, 2);
    expect(at(1025, 2015)).toMatchObject({ ok: false, why: 'nodata', tile: 'small' });
    expect(at(1100, 2015)).toMatchObject({ ok: false, why: 'outside' });
  });

  it('treats adjacent tiles on one lattice as one grid across the gap between their edge centres', () => {
    // Two 2x2 tiles of the plane h = x/10, side by side: centres at x = 5, 15 and 25, 35. A point at
    // x = 20 lies between the tiles' centres: it needs one cell from each.
    const spec = { product: 'other' as const, crs: 'EPSG:27700', ncols: 2, nrows: 2, y0: 500015, dx: 10, dy: 10 };
    const west = gridFromFunction({ ...spec, tile: 'W', x0: 400005 }, (x) => x / 10);
    const east = gridFromFunction({ ...spec, tile: 'E', x0: 400025 }, (x) => x / 10);
    const s = new DemSampler([west, east]);
    const r = s.heightAt(toWgs84([[400020, 500010]], 'EPSG:27700')[0]!);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.height).toBeCloseTo(40002, 2);
      expect([...r.grids].sort()).toEqual([0, 1]);
    }
    expect(new DemSampler([west]).heightAt(toWgs84([[400020, 500010]], 'EPSG:27700')[0]!).ok).toBe(false);
  });
});

/** An SRTM tile of 1201 x 1201 samples holding 100 + row - column, with one void. */
function syntheticHgt(): Uint8Array {
  const n = 1201;
  const bytes = new Uint8Array(n * n * 2);
  const view = new DataView(bytes.buffer);
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) view.setInt16(2 * (r * n + c), 100 + r - c, false);
  view.setInt16(2 * (600 * n + 600), -32768, false);
  return bytes;
}

describe('SRTM .hgt', () => {
  it('reads big-endian samples from the south-west corner in the name, with voids', () => {
    const g = readHgt(syntheticHgt(), 'N51W002.hgt');
    expect(g).toMatchObject({ tile: 'N51W002', product: 'srtm', crsName: 'EPSG:4326', x0: -2, y0: 52, ncols: 1201 });
    const s = new DemSampler([g]);
    // Column c at lon -2 + c/1200, row r at lat 52 - r/1200; the plane is exact under bilinear.
    const r = s.heightAt([-2 + 0.48 / 1200, 52 - 0.84 / 1200]);
    expect(r.ok && r.height).toBeCloseTo(100 + 0.84 - 0.48, 6);
    expect(s.heightAt([-2 + 600.5 / 1200, 52 - 600.5 / 1200])).toMatchObject({ ok: false, why: 'nodata' });
    expect(s.heightAt([-2.001, 51.5])).toMatchObject({ ok: false, why: 'outside' });
  });

  it('places southern and eastern tiles', () => {
    const g = readHgt(syntheticHgt(), 'S34E151.hgt');
    expect(g).toMatchObject({ x0: 151, y0: -33 });
  });
});

describe('GeoTIFF', () => {
  const w = 4;
  const h = 3;
  const values = Float32Array.from({ length: w * h }, (_, i) => 10 * Math.floor(i / w) + (i % w));
  const tiff = (extra: Record<string, unknown>) =>
    new Uint8Array(
      writeArrayBuffer(values, {
        width: w,
        height: h,
        ModelPixelScale: [50, 50, 0],
        ModelTiepoint: [0, 0, 0, 370000, 160150, 0],
        GTModelTypeGeoKey: 1,
        GDAL_NODATA: '-9999',
        SampleFormat: [3],
        BitsPerSample: [32],
        ...extra,
      }),
    );

  it('PixelIsArea: the tiepoint is the outer corner, cell centres half a cell in', async () => {
    const g = await readGeoTiff(tiff({ ProjectedCSTypeGeoKey: 27700, GTRasterTypeGeoKey: 1 }), { tile: 't' });
    expect(g).toMatchObject({
      crsName: 'EPSG:27700',
      x0: 370025,
      y0: 160125,
      dx: 50,
      dy: 50,
      ncols: 4,
      nrows: 3,
      nodata: -9999,
    });
    expect(Array.from(g.values)).toEqual(Array.from(values));
    const s = new DemSampler([g]);
    const r = s.heightAt(toWgs84([[370050, 160100]], 'EPSG:27700')[0]!); // between cells (0,0),(0,1),(1,0),(1,1)
    expect(r.ok && r.height).toBeCloseTo((0 + 1 + 10 + 11) / 4, 2);
  });

  it('PixelIsPoint: the tiepoint is the first cell centre', async () => {
    const g = await readGeoTiff(tiff({ ProjectedCSTypeGeoKey: 27700, GTRasterTypeGeoKey: 2 }), { tile: 't' });
    expect(g).toMatchObject({ x0: 370000, y0: 160150 });
  });

  it('a user-defined system needs a crs; an eu_dem tile is EU-DEM', async () => {
    await expect(readGeoTiff(tiff({ ProjectedCSTypeGeoKey: 32767 }), { tile: 't' })).rejects.toMatchObject({
      reason: 'crs_unknown',
    });
    const g = await readGeoTiff(tiff({ ProjectedCSTypeGeoKey: 32767 }), {
      tile: 'eu_dem_v11_E30N30',
      crs: 'EPSG:27700',
    });
    expect(g.product).toBe('eu-dem');
  });

  it('an EU-DEM tile (EPSG:3035) measures a line and credits only EU-DEM', async () => {
    // A plane h = 50 + (x - 3500000)/100 in LAEA metres around 52N 2W, 2 km square, 25 m cells.
    const [cx, cy] = fromWgs84([[-2, 52]], 'EPSG:3035')[0]!;
    const x0 = Math.round(cx) - 1000;
    const y0 = Math.round(cy) + 1000;
    const n = 81;
    const plane = Float32Array.from({ length: n * n }, (_, i) => 50 + (x0 + 25 * (i % n)) / 1000 - 3500);
    const bytes = new Uint8Array(
      writeArrayBuffer(plane, {
        width: n,
        height: n,
        ModelPixelScale: [25, 25, 0],
        ModelTiepoint: [0, 0, 0, x0 - 12.5, y0 + 12.5, 0],
        GTModelTypeGeoKey: 1,
        GTRasterTypeGeoKey: 1,
        ProjectedCSTypeGeoKey: 3035,
        SampleFormat: [3],
        BitsPerSample: [32],
      }),
    );
    const [g] = await readDem('eu_dem_v11_E30N30.TIF', bytes);
    expect(g).toMatchObject({ product: 'eu-dem', crsName: 'EPSG:3035', x0, y0 });
    const line: CourseLine = {
      coordinates: toWgs84(
        [
          [x0 + 200, y0 - 1000],
          [x0 + 1800, y0 - 1000],
        ],
        'EPSG:3035',
      ),
      closed: false,
      name: null,
      geometry: { source: 'file', ways: [], description: 'test line' },
    };
    const b = measureTopology(line, [g!], { measuredOn: '2024-05-01', direction: 'straight' });
    // The line climbs 1600 m of LAEA easting at 1/1000: 1.6 m (LAEA scale ~1 here), never descends.
    expect(b.totalClimbM).toBeCloseTo(1.6, 1);
    expect(b.totalDescentM).toBe(0);
    expect(b.attribution).toEqual([
      'Produced using Copernicus data and information funded by the European Union - EU-DEM layers',
    ]);
    expect(b.provenance.elevation).toEqual({ source: 'dem', products: ['EU-DEM'], tiles: ['eu_dem_v11_E30N30'] });

    // A window round the line reads only its cells (plus two on every side) and samples the same.
    const [w0, w1] = line.coordinates;
    const window = { west: w0![0] - 0.001, south: w0![1] - 0.001, east: w1![0] + 0.001, north: w1![1] + 0.001 };
    const tiff = await fromArrayBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const part = (await readGeoTiffSource(tiff, { tile: 'eu_dem_v11_E30N30', window }))!;
    // The box is the line's lon/lat extent; LAEA is turned about 9 degrees against it here.
    expect(part.ncols * part.nrows).toBeLessThan((n * n) / 2);
    const c0 = Math.round((part.x0 - x0) / 25);
    const r0 = Math.round((y0 - part.y0) / 25);
    expect(part.values[0]).toBe(g!.values[r0 * n + c0]);
    expect(part.values[part.ncols + 1]).toBe(g!.values[(r0 + 1) * n + c0 + 1]);
    expect(measureTopology(line, [part], { measuredOn: '2024-05-01', direction: 'straight' })).toEqual(b);
    const far = { west: 5, south: 45, east: 5.1, north: 45.1 };
    expect(await readGeoTiffSource(tiff, { tile: 'x', window: far })).toBeNull();
  });
});

describe('zips', () => {
  it('reads an .asc with its .prj from a zip, and identifies an OS tile by its metadata', async () => {
    const asc = 'ncols 2\nnrows 2\nxllcorner 370000\nyllcorner 160000\ncellsize 5\n1 2\n3 4\n';
    const plain = zipSync({ 'grid.asc': new TextEncoder().encode(asc), 'grid.prj': new TextEncoder().encode(BNG_WKT) });
    const [g] = await readDem('plain.zip', plain);
    expect(g).toMatchObject({ tile: 'grid', crsName: 'EPSG:27700', product: 'other', x0: 370002.5, y0: 160007.5 });
    const os = zipSync({
      'AB12.asc': new TextEncoder().encode(asc),
      'AB12.prj': new TextEncoder().encode(BNG_WKT),
      'Metadata_AB12.xml': new TextEncoder().encode('<x>OSTerrain50.AB12</x>'),
    });
    expect((await readDem('ab12.zip', os))[0]!.product).toBe('os-terrain-50');
  });
});

describe('reference systems', () => {
  // Each projection's natural origin maps to its false easting/northing exactly.
  it.each([
    ['EPSG:2157', [-8, 53.5], [600000, 750000]],
    ['EPSG:3035', [10, 52], [4321000, 3210000]],
    ['EPSG:32630', [-3, 0], [500000, 0]],
    ['EPSG:25830', [-3, 0], [500000, 0]],
    ['urn:ogc:def:crs:EPSG::32631', [3, 0], [500000, 0]],
  ] as const)('%s maps its origin exactly', (crs, ll, en) => {
    const [x, y] = fromWgs84([ll as unknown as XY], crs)[0]!;
    expect(x).toBeCloseTo(en[0], 3);
    expect(y).toBeCloseTo(en[1], 3);
  });

  it('accepts WKT with an EPSG identifier, and WKT proj4 parses itself', () => {
    const utm =
      'PROJCS["WGS 84 / UTM zone 30N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],' +
      'PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],' +
      'PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-3],PARAMETER["scale_factor",0.9996],' +
      'PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32630"]]';
    expect(resolveCrs(utm).name).toBe('EPSG:32630');
    const noId = utm.replace(',AUTHORITY["EPSG","32630"]', '');
    const r = resolveCrs(noId);
    expect(r.name).toBe('WKT');
    const [x, y] = fromWgs84([[-3, 10]], noId)[0]!;
    const [ex, ey] = fromWgs84([[-3, 10]], 'EPSG:32630')[0]!;
    expect(x).toBeCloseTo(ex, 3);
    expect(y).toBeCloseTo(ey, 3);
  });

  it('the fixture plane is metric around 0N 0E', () => {
    const line = planeLine(
      [
        [0, 0],
        [1000, 0],
      ],
      false,
    );
    expect(line.coordinates[1]![0]).toBeCloseTo(0.0089831528, 9);
    expect(resolveCrs(PLANE).name).toBe('proj4 string');
  });
});
