/**
 * `racing topology build` as a function: files in (any format, zips included), one measured block per
 * course line out. Reads the real OS Terrain 50 tiles from ../shared/data/dem.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import avro from 'avsc';
import { unzipSync } from 'fflate';
import { writeArrayBuffer } from 'geotiff';
import { afterAll, describe, expect, it } from 'vitest';
import { topologyBuild } from '../../cli/commands/topology.js';
import { courseIdOf } from '../../domain/courses.js';
import { measureTopology, readDem, readGeoJson } from '../../domain/topology/index.js';
import { fixturePath, fixtureText, HAVE_TILES, tilePath } from '../fixtures/topology/helpers.js';

/** The CourseTopology record type of the Course schema (the branch of its nullable `topology` field). */
const courseSchema = avro.Type.forSchema(
  JSON.parse(readFileSync(new URL('../../schemas/Course.avsc', import.meta.url), 'utf8')) as avro.Schema,
) as avro.types.RecordType;
const topologyUnion = courseSchema.field('topology')!.type as avro.types.UnwrappedUnionType;
const topologyType = topologyUnion.types[1]!;

describe.skipIf(!HAVE_TILES)('topologyBuild', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topology-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures the hand-made Epsom line from a zip tile', async () => {
    const results = await topologyBuild({
      geometry: fixturePath('epsom-hand-made-line.geojson'),
      dem: [tilePath('tq25'), tilePath('st76')],
      measuredOn: '2024-05-01',
    });
    expect(results).toHaveLength(1);
    const [r] = results;
    expect(r!.courseId).toBeNull();
    expect(r!.block.provenance.elevation.tiles).toEqual(['TQ25']);
    expect(r!.block.provenance.measuredOn).toBe('2024-05-01');
    expect(r!.centreline).toHaveLength(3);
    expect(r!.topology).toMatchObject({
      totalClimbM: r!.block.totalClimbM,
      closed: false,
      attribution: r!.block.attribution,
    });
    expect(r!.topology.provenance).toMatchObject({
      geometrySource: 'file',
      demProducts: ['OS Terrain 50'],
      demTiles: ['TQ25'],
    });
    expect(r!.block.direction).toBeNull();
    expect(r!.block.orientedBy).toBe('as-drawn');
  });

  it('reads an unzipped .asc with the .prj beside it, and takes the direction from --course', async () => {
    const entries = unzipSync(readFileSync(tilePath('tq25')));
    writeFileSync(join(dir, 'TQ25.asc'), entries['TQ25.asc']!);
    writeFileSync(join(dir, 'TQ25.prj'), entries['TQ25.prj']!);
    const [r] = await topologyBuild({
      geometry: fixturePath('test-oval-two-ways.osm'),
      dem: [join(dir, 'TQ25.asc')],
      course: 'epsom',
      measuredOn: '2024-05-01',
    });
    expect(r!.courseId).toBe(courseIdOf('epsom'));
    expect(r!.courseCode).toBe('epsom');
    expect(r!.block.direction).toBe('left');
    // The record fits the Course schema exactly (every field, every type).
    const errors: string[] = [];
    expect(topologyType.isValid(r!.topology, { errorHook: (path: string[]) => errors.push(path.join('.')) })).toBe(
      true,
    );
    expect(errors).toEqual([]);
    expect(r!.topology.provenance?.osmWays).toEqual([
      { id: 1001, version: 3 },
      { id: 1002, version: 7 },
    ]);
    expect(r!.block.turns.every((t) => t.hand === 'left')).toBe(true);
    // Identified as OS Terrain 50 from grid, spacing and tile name, so its attribution is kept.
    expect(r!.block.provenance.elevation.products).toEqual(['OS Terrain 50']);
    expect(r!.block.attribution).toEqual([
      '© OpenStreetMap contributors',
      'Contains OS data © Crown copyright and database right 2013',
    ]);
  });

  it('reads GeoTIFF files lazily, only round the line, and leaves out tiles it does not reach', async () => {
    // A 2 km plane (10 m cells, British National Grid) under the hand-made Epsom line, and one far away.
    const tif = (e0: number, n0: number) => {
      const n = 201;
      const values = Float32Array.from({ length: n * n }, (_, i) => 100 + (e0 + 10 * (i % n) - 521000) / 100);
      return new Uint8Array(
        writeArrayBuffer(values, {
          width: n,
          height: n,
          ModelPixelScale: [10, 10, 0],
          ModelTiepoint: [0, 0, 0, e0 - 5, n0 + 5, 0],
          GTModelTypeGeoKey: 1,
          GTRasterTypeGeoKey: 1,
          ProjectedCSTypeGeoKey: 27700,
          SampleFormat: [3],
          BitsPerSample: [32],
        }),
      );
    };
    const near = tif(521000, 159500);
    writeFileSync(join(dir, 'near.tif'), near);
    writeFileSync(join(dir, 'far.tif'), tif(400000, 300000));
    const [r] = await topologyBuild({
      geometry: fixturePath('epsom-hand-made-line.geojson'),
      dem: [join(dir, 'far.tif'), join(dir, 'near.tif')],
      measuredOn: '2024-05-01',
    });
    const whole = measureTopology(
      readGeoJson(fixtureText('epsom-hand-made-line.geojson'))[0]!,
      await readDem('near.tif', near),
      {
        measuredOn: '2024-05-01',
      },
    );
    expect(r!.block).toEqual(whole);
    expect(r!.block.provenance.elevation.tiles).toEqual(['near']);
    // The plane rises 1 m per 100 m of easting and the line runs 800 m east.
    expect(r!.block.totalClimbM).toBeCloseTo(8, 0);
    expect(r!.block.attribution).toEqual([]);
  });

  it('starts a circuit at the winning post and fails clearly on missing inputs', async () => {
    // The post on node 5002, the middle of the southern straight.
    const m = /<node id="5002" version="1" lat="([\d.-]+)" lon="([\d.-]+)"/.exec(
      fixtureText('test-oval-two-ways.osm'),
    )!;
    const post: [number, number] = [Number(m[2]), Number(m[1])];
    const [r] = await topologyBuild({
      geometry: fixturePath('test-oval-two-ways.osm'),
      dem: [tilePath('tq25')],
      direction: 'left',
      winningPost: post,
      measuredOn: '2024-05-01',
    });
    expect(r!.block.start[0]).toBeCloseTo(post[0], 7);
    expect(r!.block.start[1]).toBeCloseTo(post[1], 7);
    expect(r!.block.orientedBy).toBe('signed-area');
    await expect(topologyBuild({ geometry: fixturePath('test-oval-two-ways.osm'), dem: [] })).rejects.toMatchObject({
      reason: 'option_invalid',
    });
    await expect(
      topologyBuild({
        geometry: fixturePath('epsom-hand-made-line.geojson'),
        dem: [tilePath('st76')],
        measuredOn: '2024-05-01',
      }),
    ).rejects.toMatchObject({ reason: 'dem_no_coverage' });
  });
});
