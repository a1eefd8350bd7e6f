/**
 * Chooses the reader for a geometry or elevation file by its name, and opens zips (OS Terrain 50 tiles
 * are distributed as zips holding the .asc, its .prj and metadata). Takes bytes, never a path: the CLI
 * reads the files.
 */
import { unzipSync } from 'fflate';
import { TopologyError } from './errors.js';
import { readAsciiGrid } from './read-ascii-grid.js';
import { readGeoJson } from './read-geojson.js';
import { readGeoTiff } from './read-geotiff.js';
import { readHgt } from './read-hgt.js';
import { readOsmXml } from './read-osm-xml.js';
import type { CourseLine, DemProduct, ElevationGrid } from './types.js';

export interface GeometryReadOptions {
  readonly wayIds?: readonly number[];
  /** GeoJSON only: declare OpenStreetMap origin for files without OSM ids */
  readonly source?: 'openstreetmap' | 'file';
}

export function readGeometry(fileName: string, bytes: Uint8Array, options: GeometryReadOptions = {}): CourseLine[] {
  const ext = extension(fileName);
  const text = new TextDecoder().decode(bytes);
  if (ext === 'geojson' || ext === 'json') return readGeoJson(text, options);
  if (ext === 'osm' || ext === 'xml') return readOsmXml(text, options);
  if (ext === 'pbf') {
    throw new TopologyError(
      'geometry_parse',
      `${fileName}: OSM PBF is not read directly (no maintained PBF reader is installed); ` +
        'convert it first: osmium cat FILE.osm.pbf -o FILE.osm',
    );
  }
  throw new TopologyError(
    'geometry_parse',
    `${fileName}: unknown geometry format (expected .geojson, .json, .osm or .xml)`,
  );
}

export interface DemReadOptions {
  /** reference system for grids that do not carry one (an .asc without .prj, a user-defined GeoTIFF) */
  readonly crs?: string;
  /** the product, when the file does not make it recognisable */
  readonly product?: DemProduct;
  /** the .prj text that lies beside an .asc */
  readonly prj?: string;
}

/** Reads an elevation file: .asc, .hgt, .tif/.tiff, or a .zip holding any of them. */
export async function readDem(
  fileName: string,
  bytes: Uint8Array,
  options: DemReadOptions = {},
): Promise<ElevationGrid[]> {
  const ext = extension(fileName);
  const tile = baseName(fileName);
  switch (ext) {
    case 'zip':
      return readDemZip(fileName, bytes, options);
    case 'asc':
      return [
        identify(
          readAsciiGrid(new TextDecoder().decode(bytes), {
            tile,
            crs: options.crs ?? options.prj,
            product: options.product,
          }),
        ),
      ];
    case 'hgt':
      return [readHgt(bytes, fileName)];
    case 'tif':
    case 'tiff':
      return [await readGeoTiff(bytes, { tile, crs: options.crs, product: options.product })];
    default:
      throw new TopologyError(
        'dem_parse',
        `${fileName}: unknown elevation format (expected .asc, .hgt, .tif, .tiff or .zip)`,
      );
  }
}

async function readDemZip(fileName: string, bytes: Uint8Array, options: DemReadOptions): Promise<ElevationGrid[]> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (cause) {
    throw new TopologyError('dem_parse', `${fileName}: not a readable zip (${(cause as Error).message})`, { cause });
  }
  const names = Object.keys(entries).filter(
    (n) => !n.endsWith('/') && !n.split('/').some((p) => p.startsWith('__MACOSX')),
  );
  const text = (n: string) => new TextDecoder().decode(entries[n]!);
  // OS Terrain 50 zips carry ISO metadata and a GML footprint naming the product (OSTerrain50.<tile>).
  const osTerrain = names.some((n) => /\.(xml|gml)$/i.test(n) && /OSTerrain50|OS Terrain 50/.test(text(n)));
  const product = options.product ?? (osTerrain ? 'os-terrain-50' : undefined);
  const grids: ElevationGrid[] = [];
  for (const n of names.sort()) {
    const ext = extension(n);
    if (ext === 'asc') {
      const prjName = names.find((p) => p.toLowerCase() === n.slice(0, -4).toLowerCase() + '.prj');
      const crs = options.crs ?? (prjName ? text(prjName) : undefined);
      grids.push(identify(readAsciiGrid(text(n), { tile: baseName(n), crs, product })));
    } else if (ext === 'hgt') {
      grids.push(readHgt(entries[n]!, baseName(n) + '.hgt'));
    } else if (ext === 'tif' || ext === 'tiff') {
      grids.push(await readGeoTiff(entries[n]!, { tile: baseName(n), crs: options.crs, product }));
    }
  }
  if (grids.length === 0) {
    throw new TopologyError('dem_parse', `${fileName}: the zip holds no .asc, .hgt or GeoTIFF (${names.join(', ')})`);
  }
  return grids;
}

/**
 * An unlabelled 50 m grid in British National Grid named like an OS tile (ST76) is OS Terrain 50: no
 * other open product matches, and leaving it unidentified would drop the attribution its licence needs.
 */
function identify(g: ElevationGrid): ElevationGrid {
  if (
    g.product === 'other' &&
    g.crsName === 'EPSG:27700' &&
    g.dx === 50 &&
    g.dy === 50 &&
    /^[A-Z]{2}\d{2}$/i.test(g.tile)
  ) {
    return { ...g, product: 'os-terrain-50' };
  }
  return g;
}

function extension(name: string): string {
  const m = /\.([A-Za-z0-9]+)$/.exec(name);
  return m ? m[1]!.toLowerCase() : '';
}

function baseName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? name;
  return last.replace(/\.[A-Za-z0-9]+$/, '');
}
