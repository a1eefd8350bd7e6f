/**
 * ESRI ASCII grid (.asc), as OS Terrain 50 ships it: a header of `key value` lines (ncols, nrows,
 * xllcorner|xllcenter, yllcorner|yllcenter, cellsize or GDAL's dx/dy, optional NODATA_value), then
 * nrows rows of ncols heights, the northern row first. The format carries no reference system: it
 * comes from the .prj beside it or from the caller.
 */
import { gridFromValues } from './dem-grid.js';
import { TopologyError } from './errors.js';
import type { DemProduct, ElevationGrid } from './types.js';

export interface AsciiGridOptions {
  /** tile name for provenance and messages */
  readonly tile: string;
  /** the .prj text (WKT) or any reference system resolveCrs accepts */
  readonly crs?: string;
  readonly product?: DemProduct;
}

const HEADER_KEYS = new Set([
  'ncols',
  'nrows',
  'xllcorner',
  'xllcenter',
  'yllcorner',
  'yllcenter',
  'cellsize',
  'dx',
  'dy',
  'nodata_value',
]);

export function readAsciiGrid(text: string, options: AsciiGridOptions): ElevationGrid {
  const fail = (msg: string): never => {
    throw new TopologyError('dem_parse', `ASCII grid ${options.tile}: ${msg}`, { details: { tile: options.tile } });
  };
  const header = new Map<string, number>();
  let pos = 0;
  // Header lines: `key value` while the first word is a known key.
  while (pos < text.length) {
    const end = text.indexOf('\n', pos) < 0 ? text.length : text.indexOf('\n', pos);
    const line = text.slice(pos, end).trim();
    if (line === '') {
      pos = end + 1;
      continue;
    }
    const m = /^([A-Za-z_]+)\s+(\S+)$/.exec(line);
    if (!m || !HEADER_KEYS.has(m[1]!.toLowerCase())) break;
    const v = Number(m[2]);
    if (!Number.isFinite(v)) fail(`header ${m[1]} is not a number: ${m[2]}`);
    header.set(m[1]!.toLowerCase(), v);
    pos = end + 1;
  }
  const ncols = header.get('ncols');
  const nrows = header.get('nrows');
  if (
    ncols === undefined ||
    nrows === undefined ||
    !Number.isInteger(ncols) ||
    !Number.isInteger(nrows) ||
    ncols < 1 ||
    nrows < 1
  ) {
    return fail('the header needs positive whole ncols and nrows');
  }
  const dx = header.get('cellsize') ?? header.get('dx');
  const dy = header.get('cellsize') ?? header.get('dy');
  if (dx === undefined || dy === undefined || !(dx > 0) || !(dy > 0))
    return fail('the header needs a positive cellsize');
  const xc = header.get('xllcenter');
  const xl = header.get('xllcorner');
  const yc = header.get('yllcenter');
  const yl = header.get('yllcorner');
  if ((xc === undefined && xl === undefined) || (yc === undefined && yl === undefined)) {
    return fail('the header needs xllcorner|xllcenter and yllcorner|yllcenter');
  }
  // Cell centres: a corner origin is half a cell outside the first centre.
  const x0 = xc ?? xl! + dx / 2;
  const ySouth = yc ?? yl! + dy / 2;
  const y0 = ySouth + (nrows - 1) * dy;

  const body = text.slice(pos).trim();
  const tokens = body === '' ? [] : body.split(/\s+/);
  const n = ncols * nrows;
  if (tokens.length !== n) fail(`expected ${nrows} rows x ${ncols} columns = ${n} values, found ${tokens.length}`);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = Number(tokens[i]);
    if (!Number.isFinite(v)) fail(`value ${i + 1} (row ${Math.floor(i / ncols) + 1}) is not a number: ${tokens[i]}`);
    values[i] = v;
  }
  if (options.crs === undefined) {
    throw new TopologyError(
      'crs_unknown',
      `ASCII grid ${options.tile} has no reference system: give its .prj (beside the .asc or in the zip) or a crs`,
      { details: { tile: options.tile } },
    );
  }
  return gridFromValues(
    {
      product: options.product ?? 'other',
      tile: options.tile,
      crs: options.crs,
      ncols,
      nrows,
      x0,
      y0,
      dx,
      dy,
      nodata: header.get('nodata_value') ?? null,
    },
    values,
  );
}
