/**
 * GeoTIFF elevation models (EU-DEM tiles, SRTM or Copernicus GeoTIFFs), read with the `geotiff`
 * package. Georeferencing from ModelTiepoint + ModelPixelScale (or a north-up ModelTransformation),
 * the raster type (PixelIsArea / PixelIsPoint) and the EPSG code from the GeoKeys. A window (the
 * course's surroundings) reads only the cells needed: an EU-DEM tile has 1.6 billion.
 */
import { fromArrayBuffer, type GeoTIFF } from 'geotiff';
import { converter, resolveCrs, WGS84 } from './crs.js';
import { gridFromValues } from './dem-grid.js';
import { TopologyError } from './errors.js';
import type { DemProduct, ElevationGrid } from './types.js';

export interface GeoTiffOptions {
  readonly tile: string;
  /** reference system when the file's GeoKeys do not name an EPSG code (user-defined systems) */
  readonly crs?: string;
  readonly product?: DemProduct;
}

/** A WGS84 box (degrees). */
export interface LonLatBox {
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

/** Cells read beyond the window on every side, so bilinear sampling at its edge has its neighbours. */
const WINDOW_MARGIN_CELLS = 2;

const USER_DEFINED = 32767;

export async function readGeoTiff(bytes: Uint8Array, options: GeoTiffOptions): Promise<ElevationGrid> {
  // geotiff wants an ArrayBuffer of exactly the file (a Node Buffer may be a view into a larger pool).
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let tiff: GeoTIFF;
  try {
    tiff = await fromArrayBuffer(ab);
  } catch (cause) {
    throw new TopologyError('dem_parse', `GeoTIFF ${options.tile}: not a readable TIFF (${(cause as Error).message})`, {
      cause,
      details: { tile: options.tile },
    });
  }
  return (await readGeoTiffSource(tiff, options))!;
}

/**
 * Reads an opened GeoTIFF (the CLI opens files lazily with geotiff's fromFile). With a window, only
 * the cells covering it (plus a margin) are read, and null means the tile does not reach the window.
 */
export async function readGeoTiffSource(
  tiff: GeoTIFF,
  options: GeoTiffOptions & { window?: LonLatBox },
): Promise<ElevationGrid | null> {
  const fail = (msg: string, cause?: unknown): never => {
    throw new TopologyError('dem_parse', `GeoTIFF ${options.tile}: ${msg}`, { cause, details: { tile: options.tile } });
  };
  let image;
  try {
    image = await tiff.getImage(0);
  } catch (cause) {
    return fail(`not a readable TIFF (${(cause as Error).message})`, cause);
  }
  const ncols = image.getWidth();
  const nrows = image.getHeight();
  const dir = image.getFileDirectory();
  const tie = dir.getValue('ModelTiepoint') as ArrayLike<number> | undefined;
  const scale = dir.getValue('ModelPixelScale') as ArrayLike<number> | undefined;
  const matrix = dir.getValue('ModelTransformation') as ArrayLike<number> | undefined;

  // (ox, oy): model coordinates of raster point (0, 0); sx, sy: spacing east and south.
  let ox: number;
  let oy: number;
  let sx: number;
  let sy: number;
  if (tie && tie.length >= 6 && scale && scale.length >= 2) {
    [sx, sy] = [scale[0]!, scale[1]!];
    ox = tie[3]! - tie[0]! * sx;
    oy = tie[4]! + tie[1]! * sy;
  } else if (matrix && matrix.length >= 8) {
    if (matrix[1] !== 0 || matrix[4] !== 0)
      return fail('a rotated grid (ModelTransformation with shear) is not supported');
    [sx, sy, ox, oy] = [matrix[0]!, -matrix[5]!, matrix[3]!, matrix[7]!];
  } else {
    return fail('no georeferencing (neither ModelTiepoint + ModelPixelScale nor ModelTransformation)');
  }
  if (!(sx > 0 && sy > 0)) return fail(`only north-up grids are supported (pixel scale ${sx}, ${sy})`);

  const keys = (image.getGeoKeys() ?? {}) as Record<string, unknown>;
  // PixelIsArea (the default): raster point (0, 0) is the outer corner of the first cell.
  const area = keys['GTRasterTypeGeoKey'] !== 2;
  const x0 = area ? ox + sx / 2 : ox;
  const y0 = area ? oy - sy / 2 : oy;

  const crs = options.crs ?? crsFromKeys(keys);
  if (crs === undefined) {
    throw new TopologyError(
      'crs_unknown',
      `GeoTIFF ${options.tile} names no EPSG reference system (user-defined GeoKeys): give its crs`,
      { details: { tile: options.tile, geoKeys: keys } },
    );
  }

  // [c0, r0, c1, r1): the cells to read.
  let win: [number, number, number, number] = [0, 0, ncols, nrows];
  if (options.window) {
    const w = options.window;
    const toGrid = converter(resolveCrs(crs).def, WGS84);
    const corners = [
      [w.west, w.south],
      [w.west, w.north],
      [w.east, w.south],
      [w.east, w.north],
      [(w.west + w.east) / 2, w.south],
      [(w.west + w.east) / 2, w.north],
      [w.west, (w.south + w.north) / 2],
      [w.east, (w.south + w.north) / 2],
    ].map(([lon, lat]) => toGrid.inverse([lon!, lat!]));
    const cs = corners.map(([x]) => (x - x0) / sx);
    const rs = corners.map(([, y]) => (y0 - y) / sy);
    win = [
      Math.max(0, Math.floor(Math.min(...cs)) - WINDOW_MARGIN_CELLS),
      Math.max(0, Math.floor(Math.min(...rs)) - WINDOW_MARGIN_CELLS),
      Math.min(ncols, Math.ceil(Math.max(...cs)) + 1 + WINDOW_MARGIN_CELLS),
      Math.min(nrows, Math.ceil(Math.max(...rs)) + 1 + WINDOW_MARGIN_CELLS),
    ];
    if (win[0] >= win[2] || win[1] >= win[3]) return null;
  }
  const raster = await image.readRasters({ samples: [0], interleave: true, window: win });
  const values =
    raster instanceof Float64Array || raster instanceof Float32Array
      ? raster
      : Float32Array.from(raster as ArrayLike<number>);
  return gridFromValues(
    {
      product: options.product ?? (/eu[_-]?dem/i.test(options.tile) ? 'eu-dem' : 'other'),
      tile: options.tile,
      crs,
      ncols: win[2] - win[0],
      nrows: win[3] - win[1],
      x0: x0 + win[0] * sx,
      y0: y0 - win[1] * sy,
      dx: sx,
      dy: sy,
      nodata: image.getGDALNoData(),
    },
    values,
  );
}

function crsFromKeys(keys: Record<string, unknown>): string | undefined {
  const projected = keys['ProjectedCSTypeGeoKey'];
  if (typeof projected === 'number' && projected > 0 && projected !== USER_DEFINED) return `EPSG:${projected}`;
  const geographic = keys['GeographicTypeGeoKey'];
  if (
    keys['GTModelTypeGeoKey'] !== 1 &&
    typeof geographic === 'number' &&
    geographic > 0 &&
    geographic !== USER_DEFINED
  ) {
    return `EPSG:${geographic}`;
  }
  return undefined;
}
