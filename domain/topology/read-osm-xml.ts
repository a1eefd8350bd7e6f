/**
 * OSM XML (an .osm extract, osmium or Overpass output): the ways tagged leisure=track with
 * sport=horse_racing, their nodes resolved to coordinates, joined into lines. Parsed with
 * fast-xml-parser.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { TopologyError } from './errors.js';
import { joinPieces, type LinePiece } from './line-join.js';
import type { CourseLine, LonLat } from './types.js';

export interface OsmXmlReadOptions {
  /** keep only these way ids */
  readonly wayIds?: readonly number[];
}

interface XmlTag {
  k?: string;
  v?: string;
}
interface XmlNode {
  id?: string;
  lat?: string;
  lon?: string;
  action?: string;
  visible?: string;
}
interface XmlWay {
  id?: string;
  version?: string;
  action?: string;
  visible?: string;
  nd?: { ref?: string }[];
  tag?: XmlTag[];
}
interface XmlDoc {
  osm?: { node?: XmlNode[]; way?: XmlWay[] };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  isArray: (name) => name === 'node' || name === 'way' || name === 'nd' || name === 'tag' || name === 'relation',
});

export function readOsmXml(text: string, options: OsmXmlReadOptions = {}): CourseLine[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new TopologyError(
      'geometry_parse',
      `the OSM file is not well-formed XML: ${msg} (line ${line}, column ${col})`,
    );
  }
  const doc = parser.parse(text) as XmlDoc;
  if (!doc.osm || typeof doc.osm !== 'object') {
    throw new TopologyError('geometry_parse', 'the XML file has no <osm> root element');
  }
  const live = (e: { action?: string; visible?: string }) => e.action !== 'delete' && e.visible !== 'false';
  const nodes = new Map<string, LonLat>();
  for (const n of doc.osm.node ?? []) {
    if (!live(n) || n.id === undefined) continue;
    const lon = Number(n.lon);
    const lat = Number(n.lat);
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
      throw new TopologyError('geometry_parse', `node ${n.id} has no valid lat/lon`);
    }
    nodes.set(n.id, [lon, lat]);
  }
  const ways = (doc.osm.way ?? []).filter(live);
  const pieces: LinePiece[] = [];
  for (const w of ways) {
    const tags = new Map((w.tag ?? []).map((t) => [t.k ?? '', t.v ?? '']));
    const sport = (tags.get('sport') ?? '').split(';').map((s) => s.trim());
    if (tags.get('leisure') !== 'track' || !sport.includes('horse_racing')) continue;
    const id = Number(w.id);
    if (!Number.isSafeInteger(id)) throw new TopologyError('geometry_parse', `a way has no valid id (${w.id})`);
    if (options.wayIds && !options.wayIds.includes(id)) continue;
    const coords = (w.nd ?? []).map((nd) => {
      const p = nd.ref === undefined ? undefined : nodes.get(nd.ref);
      if (!p) {
        throw new TopologyError(
          'geometry_parse',
          `way ${id} refers to node ${nd.ref} which the file does not contain: export complete ways ` +
            '(osmium extract keeps them; osmium tags-filter keeps referenced nodes unless given -R)',
          { details: { way: id, node: nd.ref } },
        );
      }
      return p;
    });
    const version = w.version !== undefined && /^\d+$/.test(w.version) ? Number(w.version) : null;
    pieces.push({ coordinates: coords, way: { id, version }, name: tags.get('name') ?? null, description: null });
  }
  if (pieces.length === 0) {
    throw new TopologyError(
      'geometry_no_line',
      `the OSM file has no way tagged leisure=track + sport=horse_racing (${ways.length} ways read)`,
    );
  }
  return joinPieces(pieces, 'openstreetmap');
}
