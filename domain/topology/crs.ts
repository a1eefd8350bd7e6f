/**
 * Reference systems through proj4. The systems racecourse data come in are defined here with their
 * standard proj4 strings (with the datum shift to WGS84), so results do not depend on what a .prj
 * happens to say about the datum; anything else proj4 can parse (a proj4 string, WKT) is passed to it.
 */
import proj4 from 'proj4';
import { TopologyError } from './errors.js';
import type { LonLat, XY } from './types.js';

export const WGS84 = '+proj=longlat +datum=WGS84 +no_defs';

/**
 * British National Grid with the OSGB36 -> WGS84 Helmert transformation (OS's published 7 parameters,
 * good to about 5 m; OSTN15 would be exact but is a grid file proj4 cannot read here).
 */
export const BNG =
  '+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +ellps=airy ' +
  '+towgs84=446.448,-125.157,542.06,0.15,0.247,0.842,-20.489 +units=m +no_defs';

const IRISH_GRID =
  '+proj=tmerc +lat_0=53.5 +lon_0=-8 +k=1.000035 +x_0=200000 +y_0=250000 +ellps=mod_airy ' +
  '+towgs84=482.5,-130.6,564.6,-1.042,-0.214,-0.631,8.15 +units=m +no_defs';

const KNOWN: Readonly<Record<number, string>> = {
  4326: WGS84,
  // ETRS89 and WGS84 differ by well under a metre in Britain and Ireland: treated as equal.
  4258: '+proj=longlat +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +no_defs',
  27700: BNG,
  2157: '+proj=tmerc +lat_0=53.5 +lon_0=-8 +k=0.99982 +x_0=600000 +y_0=750000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
  29902: IRISH_GRID,
  29903: IRISH_GRID,
  // EU-DEM's own system: ETRS89 Lambert azimuthal equal-area.
  3035: '+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs',
  3857: '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs',
};

/** proj4 definition of an EPSG code this module knows (including every WGS84 and ETRS89 UTM zone). */
export function epsgDefinition(code: number): string | undefined {
  const known = KNOWN[code];
  if (known) return known;
  if (code >= 32601 && code <= 32660) return `+proj=utm +zone=${code - 32600} +datum=WGS84 +units=m +no_defs`;
  if (code >= 32701 && code <= 32760) return `+proj=utm +zone=${code - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (code >= 25828 && code <= 25838) {
    return `+proj=utm +zone=${code - 25800} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`;
  }
  return undefined;
}

export interface ResolvedCrs {
  /** proj4 definition */
  readonly def: string;
  /** EPSG:n when known, else 'proj4 string' or 'WKT' */
  readonly name: string;
  readonly geographic: boolean;
}

const EPSG_FORMS = [
  /^epsg:+(\d+)$/i,
  /^urn:ogc:def:crs:epsg:[\d.]*:(\d+)$/i,
  /^https?:\/\/www\.opengis\.net\/def\/crs\/epsg\/0\/(\d+)$/i,
];

/**
 * Resolves a reference system given as `EPSG:n`, an OGC URN or URL, a proj4 string or a WKT text (a
 * .prj). Throws `crs_unknown` when proj4 cannot use it.
 */
export function resolveCrs(input: string): ResolvedCrs {
  const text = input.trim();
  if (/^urn:ogc:def:crs:ogc:[\d.]*:crs84$/i.test(text) || /^crs:?84$/i.test(text)) return known(4326);
  for (const form of EPSG_FORMS) {
    const m = form.exec(text);
    if (m) {
      const code = Number(m[1]);
      if (!epsgDefinition(code)) {
        throw new TopologyError('crs_unknown', `unknown reference system EPSG:${code}: give its proj4 string or WKT`, {
          details: { crs: text },
        });
      }
      return known(code);
    }
  }
  if (/^[A-Z_]+(CS|CRS)?\s*\[/i.test(text)) return fromWkt(text);
  if (text.startsWith('+')) return checked(text, 'proj4 string');
  throw new TopologyError('crs_unknown', `unknown reference system "${text.slice(0, 80)}"`, { details: { crs: text } });
}

function known(code: number): ResolvedCrs {
  const def = epsgDefinition(code)!;
  return { def, name: `EPSG:${code}`, geographic: def.includes('+proj=longlat') };
}

/**
 * WKT: the top-level EPSG identifier wins when it is one we define; British National Grid is
 * recognised by name as well, because its ESRI .prj (the one in OS Terrain 50 zips) has no identifier
 * and no datum shift, and the shift matters (about 100 m).
 */
function fromWkt(wkt: string): ResolvedCrs {
  const ids = [...wkt.matchAll(/(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  const last = ids[ids.length - 1];
  // The top-level object's identifier is the last one, directly before the closing bracket.
  if (last && /^\s*\]\s*$/.test(wkt.slice(last.index + last[0].length))) {
    const code = Number(last[1]);
    if (epsgDefinition(code)) return known(code);
  }
  if (/British[_ ]National[_ ]Grid|OSGB[_ ]?(19)?36/i.test(wkt) && /Transverse_Mercator/i.test(wkt))
    return known(27700);
  return checked(wkt, 'WKT');
}

function checked(def: string, name: string): ResolvedCrs {
  try {
    const probe = proj4(def, WGS84);
    const isGeo =
      /^\s*(GEOGCS|GEOGCRS|GEOGRAPHICCRS)\b/i.test(def) || /\+proj=(longlat|latlong|lonlat|latlon)\b/.test(def);
    // Touch the converter once: proj4 defers some failures to the first transform.
    probe.forward(isGeo ? [0, 0] : [500000, 0]);
    return { def, name, geographic: isGeo };
  } catch (cause) {
    throw new TopologyError('crs_unknown', `proj4 cannot use this reference system (${name}): ${describe(cause)}`, {
      cause,
      details: { crs: def.slice(0, 200) },
    });
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

interface Converter {
  forward(p: XY): XY;
  inverse(p: XY): XY;
}

const converters = new Map<string, Converter>();

/** A cached proj4 converter from `from` to `to` (both proj4 definitions). */
export function converter(from: string, to: string): Converter {
  const key = `${from}\u0000${to}`;
  let c = converters.get(key);
  if (!c) {
    const p = proj4(from, to);
    c = {
      forward: (q) => p.forward([q[0], q[1]]) as unknown as XY,
      inverse: (q) => p.inverse([q[0], q[1]]) as unknown as XY,
    };
    converters.set(key, c);
  }
  return c;
}

/**
 * The measuring projection: a transverse Mercator on the WGS84 ellipsoid, scale 1, centred on the
 * course. Within 3 km of its centre its scale error is under 1.2e-7 (about 1 mm per 10 km), so planar
 * metres there are ellipsoidal metres for every purpose here.
 */
export function localProjection(centre: LonLat): string {
  return `+proj=tmerc +lat_0=${centre[1]} +lon_0=${centre[0]} +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs`;
}

/** Points in a projected (or geographic) system to WGS84 lon/lat. */
export function toWgs84(points: readonly XY[], crs: string): LonLat[] {
  const c = converter(resolveCrs(crs).def, WGS84);
  return points.map((p) => c.forward(p));
}

/** WGS84 lon/lat to a projected (or geographic) system. */
export function fromWgs84(points: readonly LonLat[], crs: string): XY[] {
  const c = converter(resolveCrs(crs).def, WGS84);
  return points.map((p) => c.inverse(p));
}
