/**
 * SRTM .hgt tiles: big-endian signed 16-bit heights in metres, 1201 x 1201 (3 arc-second) or
 * 3601 x 3601 (1 arc-second) samples, northern row first, -32768 = void, WGS84 geographic. The file name
 * gives the south-west corner (N51W002.hgt covers 51..52 N, 2..1 W); samples sit on the whole-degree
 * lines, so the first and last rows and columns lie exactly on the tile's edges.
 */
import { gridFromValues } from './dem-grid.js';
import { TopologyError } from './errors.js';
import type { ElevationGrid } from './types.js';

export const HGT_VOID = -32768;

export function readHgt(bytes: Uint8Array, fileName: string): ElevationGrid {
  const m = /([NS])(\d{2})([EW])(\d{3})/i.exec(fileName);
  if (!m) {
    throw new TopologyError(
      'dem_parse',
      `${fileName}: an .hgt file name must give its south-west corner, e.g. N51W002.hgt`,
    );
  }
  const size = [1201, 3601].find((s) => s * s * 2 === bytes.length);
  if (size === undefined) {
    throw new TopologyError(
      'dem_corrupt',
      `${fileName}: ${bytes.length} bytes is not an SRTM tile (1201² or 3601² 16-bit samples: 2884802 or 25934402 bytes)`,
      { details: { bytes: bytes.length } },
    );
  }
  const lat = Number(m[2]) * (m[1]!.toUpperCase() === 'S' ? -1 : 1);
  const lon = Number(m[4]) * (m[3]!.toUpperCase() === 'W' ? -1 : 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(size * size);
  for (let i = 0; i < values.length; i++) values[i] = view.getInt16(2 * i, false);
  const step = 1 / (size - 1);
  return gridFromValues(
    {
      product: 'srtm',
      tile: m[0].toUpperCase(),
      crs: 'EPSG:4326',
      ncols: size,
      nrows: size,
      x0: lon,
      y0: lat + 1,
      dx: step,
      dy: step,
      nodata: HGT_VOID,
    },
    values,
  );
}
