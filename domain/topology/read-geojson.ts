/**
 * GeoJSON course centrelines: LineString, MultiLineString (and a Polygon's outer ring, which is how
 * osmium exports a closed way it takes for an area), bare or in a Feature, FeatureCollection or
 * GeometryCollection. When the features carry OSM tags, only ways tagged leisure=track with
 * sport=horse_racing are kept. A legacy `crs` member (e.g. EPSG:27700) is honoured.
 */
import { converter, resolveCrs, WGS84 } from './crs.js';
import { TopologyError } from './errors.js';
import { joinPieces, type LinePiece } from './line-join.js';
import type { CourseLine, LonLat, OsmWayRef } from './types.js';

export interface GeoJsonReadOptions {
  /**
   * Say the data come from OpenStreetMap even when the features carry no OSM ids (the ODbL attribution
   * then applies). Without it, a file is OpenStreetMap data when its features carry OSM way ids.
   */
  readonly source?: 'openstreetmap' | 'file';
  /** keep only these OSM way ids */
  readonly wayIds?: readonly number[];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

interface RawFeature {
  geometry: Obj;
  properties: Obj;
  id: Json;
}

export function readGeoJson(text: string, options: GeoJsonReadOptions = {}): CourseLine[] {
  let doc: Json;
  try {
    doc = JSON.parse(text) as Json;
  } catch (cause) {
    throw new TopologyError('geometry_parse', `the geometry file is not valid JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (!isObj(doc) || typeof doc['type'] !== 'string') {
    throw new TopologyError('geometry_parse', 'the geometry file is not a GeoJSON object (no "type" member)');
  }
  const toWgs = crsOf(doc);
  const features = collect(doc);
  const tagged = features.some((f) => 'leisure' in tagsOf(f.properties) || 'sport' in tagsOf(f.properties));
  const pieces: LinePiece[] = [];
  for (const f of features) {
    const tags = tagsOf(f.properties);
    if (tagged && !isRacecourse(tags)) continue;
    const way = wayRef(f);
    if (options.wayIds && (!way || !options.wayIds.includes(way.id))) continue;
    const name = typeof tags['name'] === 'string' ? tags['name'] : null;
    const note = ['note', 'description', 'label'].map((k) => f.properties[k]).find((v) => typeof v === 'string');
    for (const coords of lineParts(f.geometry)) {
      pieces.push({ coordinates: coords.map(toWgs), way, name, description: typeof note === 'string' ? note : null });
    }
  }
  if (pieces.length === 0) {
    throw new TopologyError(
      'geometry_no_line',
      tagged
        ? 'the GeoJSON has no line tagged leisure=track + sport=horse_racing'
        : 'the GeoJSON has no LineString, MultiLineString or Polygon to measure',
      { details: { features: features.length } },
    );
  }
  const osm = options.source === 'openstreetmap' || (options.source === undefined && pieces.some((p) => p.way));
  return joinPieces(pieces, osm ? 'openstreetmap' : 'file');
}

function isObj(v: Json | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function collect(doc: Obj): RawFeature[] {
  switch (doc['type']) {
    case 'FeatureCollection': {
      const list = doc['features'];
      if (!Array.isArray(list))
        throw new TopologyError('geometry_parse', 'a FeatureCollection without a features array');
      return list.flatMap((f) => (isObj(f) ? collect(f) : []));
    }
    case 'Feature': {
      const g = doc['geometry'];
      if (!isObj(g)) return [];
      return [{ geometry: g, properties: isObj(doc['properties']) ? doc['properties'] : {}, id: doc['id'] ?? null }];
    }
    default:
      return [{ geometry: doc, properties: {}, id: null }];
  }
}

/** Tags are the properties themselves (osmium, Overpass turbo) or a nested `tags` object. */
function tagsOf(props: Obj): Obj {
  const nested = props['tags'];
  return isObj(nested) ? { ...props, ...nested } : props;
}

function isRacecourse(tags: Obj): boolean {
  const sport = typeof tags['sport'] === 'string' ? tags['sport'].split(';').map((s) => s.trim()) : [];
  return tags['leisure'] === 'track' && sport.includes('horse_racing');
}

/**
 * OSM way id from `way/123` (Overpass), `w123` (osmium --add-unique-id=type_id), a numeric `@id` with
 * `@type` way (osmium --attributes), or osm_way_id / osm_type + osm_id properties.
 */
function wayRef(f: RawFeature): OsmWayRef | null {
  const p = f.properties;
  const candidates: Json[] = [p['@id'] ?? null, f.id, p['id'] ?? null, p['osm_way_id'] ?? null];
  let id: number | null = null;
  for (const c of candidates) {
    const m = typeof c === 'string' ? /^(?:way\/|w)(\d+)$/.exec(c) : null;
    if (m) {
      id = Number(m[1]);
      break;
    }
  }
  // osmium export --attributes=type,id,version: numeric @id beside @type.
  if (id === null && typeof p['@id'] === 'number' && (p['@type'] === 'way' || p['@type'] === 'w')) id = p['@id'];
  if (id === null && typeof p['osm_way_id'] === 'number') id = p['osm_way_id'];
  if (id === null && p['osm_type'] === 'way' && typeof p['osm_id'] === 'number') id = p['osm_id'];
  if (id === null) return null;
  const v = p['@version'] ?? p['version'] ?? p['osm_version'];
  const version = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null;
  return { id, version };
}

function lineParts(g: Obj): LonLat[][] {
  const c = g['coordinates'];
  switch (g['type']) {
    case 'LineString':
      return [positions(c, 'LineString')];
    case 'MultiLineString':
      return arrayOf(c, 'MultiLineString').map((l) => positions(l, 'MultiLineString'));
    case 'Polygon': {
      const rings = arrayOf(c, 'Polygon');
      return rings.length > 0 ? [positions(rings[0]!, 'Polygon')] : [];
    }
    case 'MultiPolygon':
      return arrayOf(c, 'MultiPolygon').flatMap((poly) => {
        const rings = arrayOf(poly, 'MultiPolygon');
        return rings.length > 0 ? [positions(rings[0]!, 'MultiPolygon')] : [];
      });
    case 'GeometryCollection': {
      const gs = g['geometries'];
      return Array.isArray(gs) ? gs.flatMap((x) => (isObj(x) ? lineParts(x) : [])) : [];
    }
    case 'Point':
    case 'MultiPoint':
      return [];
    default:
      throw new TopologyError('geometry_parse', `unknown GeoJSON geometry type ${JSON.stringify(g['type'])}`);
  }
}

function arrayOf(v: Json | undefined, what: string): Json[] {
  if (!Array.isArray(v)) throw new TopologyError('geometry_parse', `${what} coordinates are not an array`);
  return v;
}

function positions(v: Json | undefined, what: string): LonLat[] {
  return arrayOf(v, what).map((p, i) => {
    if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number') {
      throw new TopologyError('geometry_parse', `${what} position ${i} is not [x, y]: ${JSON.stringify(p)}`);
    }
    if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
      throw new TopologyError('geometry_parse', `${what} position ${i} is not finite`);
    }
    return [p[0], p[1]] as const;
  });
}

/** The legacy (2008) `crs` member; RFC 7946 GeoJSON is always WGS84 lon/lat. */
function crsOf(doc: Obj): (p: LonLat) => LonLat {
  const crs = doc['crs'];
  const name = isObj(crs) && isObj(crs['properties']) ? crs['properties']['name'] : undefined;
  if (typeof name !== 'string') return checkLonLat;
  const resolved = resolveCrs(name);
  if (resolved.name === 'EPSG:4326') return checkLonLat;
  const c = converter(resolved.def, WGS84);
  return (p) => c.forward(p);
}

function checkLonLat(p: LonLat): LonLat {
  if (Math.abs(p[0]) > 180 || Math.abs(p[1]) > 90) {
    throw new TopologyError(
      'geometry_parse',
      `position [${p[0]}, ${p[1]}] is not WGS84 longitude/latitude; a projected file needs a "crs" member`,
    );
  }
  return p;
}
