/**
 * Elevation grids: the products we know (and the attribution each one requires), building a grid from
 * a function (fixtures, generated terrain), and bilinear sampling across a set of tiles.
 */
import { converter, resolveCrs, WGS84 } from './crs.js';
import { TopologyError } from './errors.js';
import type { DemProduct, ElevationGrid, LonLat } from './types.js';

export interface ProductInfo {
  readonly name: string;
  /** the attribution the product's licence requires, or null */
  readonly attribution: string | null;
}

export const PRODUCTS: Readonly<Record<DemProduct, ProductInfo>> = {
  'os-terrain-50': {
    name: 'OS Terrain 50',
    attribution: 'Contains OS data © Crown copyright and database right 2013',
  },
  'eu-dem': {
    name: 'EU-DEM',
    attribution: 'Produced using Copernicus data and information funded by the European Union - EU-DEM layers',
  },
  // Public domain; the credit is the one USGS asks for, not a licence condition.
  srtm: { name: 'SRTM', attribution: 'SRTM data courtesy of the U.S. Geological Survey' },
  generated: { name: 'generated', attribution: null },
  other: { name: 'unidentified elevation model', attribution: null },
};

export interface GridSpec {
  readonly product: DemProduct;
  readonly tile: string;
  /** any form resolveCrs accepts */
  readonly crs: string;
  readonly ncols: number;
  readonly nrows: number;
  /** centre of column 0 / row 0 (the northern row) */
  readonly x0: number;
  readonly y0: number;
  readonly dx: number;
  readonly dy: number;
  readonly nodata?: number | null;
}

/** A grid whose cell (c, r) holds f(x, y) at the cell's centre. */
export function gridFromFunction(spec: GridSpec, f: (x: number, y: number) => number): ElevationGrid {
  const values = new Float64Array(spec.ncols * spec.nrows);
  for (let r = 0; r < spec.nrows; r++) {
    const y = spec.y0 - r * spec.dy;
    for (let c = 0; c < spec.ncols; c++) values[r * spec.ncols + c] = f(spec.x0 + c * spec.dx, y);
  }
  return gridFromValues(spec, values);
}

export function gridFromValues(spec: GridSpec, values: Float32Array | Float64Array): ElevationGrid {
  const crs = resolveCrs(spec.crs);
  if (!(spec.ncols > 0 && spec.nrows > 0 && spec.dx > 0 && spec.dy > 0) || values.length !== spec.ncols * spec.nrows) {
    throw new TopologyError('dem_parse', `grid ${spec.tile}: inconsistent size or spacing`);
  }
  return { ...spec, crs: crs.def, crsName: crs.name, nodata: spec.nodata ?? null, values };
}

/** Fractions of a cell this close to a cell line count as on it. */
const SNAP = 1e-7;

export type SampleResult =
  | { readonly ok: true; readonly height: number; readonly grids: readonly number[] }
  | { readonly ok: false; readonly why: 'outside' | 'nodata'; readonly tile?: string };

/**
 * Bilinear sampling over several tiles. Heights sit at cell centres, so near a tile's edge the four
 * surrounding centres can belong to two tiles: they are looked up in every tile on the same lattice
 * (same system, spacing and alignment), which makes adjacent tiles behave as one grid.
 */
export class DemSampler {
  private readonly toGrid: ((p: LonLat) => readonly [number, number])[];

  constructor(readonly grids: readonly ElevationGrid[]) {
    this.toGrid = grids.map((g) => {
      if (g.crsName === 'EPSG:4326') return (p: LonLat) => p;
      const c = converter(g.crs, WGS84);
      return (p: LonLat) => c.inverse(p);
    });
  }

  /** Height at a WGS84 point, and the grids whose cells contributed. */
  heightAt(p: LonLat): SampleResult {
    let nodataTile: string | undefined;
    for (let i = 0; i < this.grids.length; i++) {
      const g = this.grids[i]!;
      const [x, y] = this.toGrid[i]!(p);
      const fc = (x - g.x0) / g.dx;
      const fr = (g.y0 - y) / g.dy;
      if (!(fc >= -0.5 && fc <= g.ncols - 0.5 && fr >= -0.5 && fr <= g.nrows - 0.5)) continue;
      // A point on a cell line (to float noise: the projection round trip moves points by ~1e-9 of
      // a cell) needs only the cells on that line, not the next row or column (which may be void or
      // beyond the grid).
      let c0 = Math.floor(fc);
      let r0 = Math.floor(fr);
      let tx = fc - c0;
      let ty = fr - r0;
      if (tx < SNAP) tx = 0;
      else if (tx > 1 - SNAP) [c0, tx] = [c0 + 1, 0];
      if (ty < SNAP) ty = 0;
      else if (ty > 1 - SNAP) [r0, ty] = [r0 + 1, 0];
      const corners: [number, number, number][] = [
        [c0, r0, (1 - tx) * (1 - ty)],
        [c0 + 1, r0, tx * (1 - ty)],
        [c0, r0 + 1, (1 - tx) * ty],
        [c0 + 1, r0 + 1, tx * ty],
      ];
      let h = 0;
      let missing = false;
      let nodata = false;
      const used = new Set<number>();
      for (const [c, r, w] of corners) {
        if (w === 0) continue;
        const v = this.cell(i, c, r);
        if (v === undefined) {
          missing = true;
          break;
        }
        if (v.value === null) {
          nodata = true;
          break;
        }
        used.add(v.grid);
        h += w * v.value;
      }
      if (nodata) nodataTile ??= g.tile;
      if (missing || nodata) continue;
      return { ok: true, height: h, grids: [...used] };
    }
    return nodataTile === undefined ? { ok: false, why: 'outside' } : { ok: false, why: 'nodata', tile: nodataTile };
  }

  /** Value of the cell (c, r) of grid i's lattice, from grid i or a neighbouring tile on the same lattice. */
  private cell(i: number, c: number, r: number): { grid: number; value: number | null } | undefined {
    const g = this.grids[i]!;
    if (c >= 0 && c < g.ncols && r >= 0 && r < g.nrows) return { grid: i, value: valueOf(g, c, r) };
    const x = g.x0 + c * g.dx;
    const y = g.y0 - r * g.dy;
    for (let j = 0; j < this.grids.length; j++) {
      const o = this.grids[j]!;
      if (j === i || o.crs !== g.crs || o.dx !== g.dx || o.dy !== g.dy) continue;
      const oc = (x - o.x0) / o.dx;
      const or = (o.y0 - y) / o.dy;
      const rc = Math.round(oc);
      const rr = Math.round(or);
      if (Math.abs(oc - rc) > 1e-6 || Math.abs(or - rr) > 1e-6) continue; // not aligned
      if (rc >= 0 && rc < o.ncols && rr >= 0 && rr < o.nrows) return { grid: j, value: valueOf(o, rc, rr) };
    }
    return undefined;
  }
}

function valueOf(g: ElevationGrid, c: number, r: number): number | null {
  const v = g.values[r * g.ncols + c]!;
  return Number.isNaN(v) || (g.nodata !== null && v === g.nodata) ? null : v;
}
