/**
 * Joins the pieces of a course (OSM ways, GeoJSON line parts) into lines by matching their ends,
 * reversing pieces as needed, and detects closed circuits. Pieces that touch end to end form one line;
 * pieces that never touch form separate lines (a straight course beside a round course).
 */
import { TopologyError } from './errors.js';
import type { CourseLine, GeometryProvenance, LonLat, OsmWayRef } from './types.js';

export interface LinePiece {
  readonly coordinates: readonly LonLat[];
  /** the OSM way this piece is, when known */
  readonly way: OsmWayRef | null;
  readonly name: string | null;
  /** free text to keep in provenance (a GeoJSON feature's note or description) */
  readonly description: string | null;
}

/** Ends closer than this are the same point (OSM shares nodes; exports round coordinates to ~1 cm). */
export const JOIN_TOLERANCE_M = 0.5;

/** Approximate ground distance in metres; only used to compare against small tolerances. */
export function roughDistanceM(a: LonLat, b: LonLat): number {
  const lat = ((a[1] + b[1]) / 2) * (Math.PI / 180);
  const dx = (b[0] - a[0]) * 111_320 * Math.cos(lat);
  const dy = (b[1] - a[1]) * 110_574;
  return Math.hypot(dx, dy);
}

function dedupe(points: readonly LonLat[]): LonLat[] {
  const out: LonLat[] = [];
  for (const p of points) {
    const prev = out[out.length - 1];
    if (!prev || roughDistanceM(prev, p) > 1e-3) out.push(p);
  }
  return out;
}

interface End {
  piece: number;
  atStart: boolean;
  p: LonLat;
}

/**
 * Joins pieces into lines. `source` says whether the pieces are OpenStreetMap data (their way ids go
 * into provenance). Throws `geometry_no_line` when nothing usable is left, `geometry_branched` when
 * three or more piece ends meet at one point (the pieces are not one line: filter them first).
 */
export function joinPieces(pieces: readonly LinePiece[], source: 'openstreetmap' | 'file'): CourseLine[] {
  const usable = pieces
    .map((p) => ({ ...p, coordinates: dedupe(p.coordinates) }))
    .filter((p) => p.coordinates.length >= 2);
  if (usable.length === 0) {
    throw new TopologyError(
      'geometry_too_short',
      pieces.length === 0 ? 'no line to measure' : 'every line has fewer than two distinct points',
    );
  }
  const ends: End[] = [];
  usable.forEach((p, i) => {
    ends.push({ piece: i, atStart: true, p: p.coordinates[0]! });
    ends.push({ piece: i, atStart: false, p: p.coordinates[p.coordinates.length - 1]! });
  });
  const touching = (e: End): End[] =>
    ends.filter(
      (o) => !(o.piece === e.piece && o.atStart === e.atStart) && roughDistanceM(o.p, e.p) <= JOIN_TOLERANCE_M,
    );

  for (const e of ends) {
    const meet = touching(e);
    if (meet.length > 1) {
      const ids = [e, ...meet].map((x) => describePiece(usable[x.piece]!, x.piece));
      throw new TopologyError(
        'geometry_branched',
        `${ids.length} line ends meet at ${fmt(e.p)} (${ids.join(', ')}): the pieces do not form one line; ` +
          'select the ways of one course (e.g. by way id) and measure them separately',
        { details: { at: e.p } },
      );
    }
  }

  const used = new Set<number>();
  const lines: CourseLine[] = [];
  for (let first = 0; first < usable.length; first++) {
    if (used.has(first)) continue;
    // Start from a free end so an open chain is walked from one end to the other.
    const component = componentOf(first, touching, ends);
    const startPiece = component.find(
      (i) => touching(ends[2 * i]!).length === 0 || touching(ends[2 * i + 1]!).length === 0,
    );
    let current = startPiece ?? first;
    let forward = startPiece === undefined ? true : touching(ends[2 * current]!).length === 0;
    let coords: LonLat[] = [];
    let parts: LinePiece[] = [];
    let firstForward = true;
    while (true) {
      used.add(current);
      const piece = usable[current]!;
      parts.push(piece);
      if (current === first) firstForward = forward;
      const pts = forward ? piece.coordinates : [...piece.coordinates].reverse();
      coords.push(...(coords.length === 0 ? pts : pts.slice(1)));
      const tail = ends[2 * current + (forward ? 1 : 0)]!;
      const next = touching(tail).find((o) => !used.has(o.piece));
      if (!next) break;
      current = next.piece;
      forward = next.atStart;
    }
    // The joined line keeps the drawing direction of its first piece in the file.
    if (!firstForward) {
      coords = coords.reverse();
      parts = parts.reverse();
    }
    lines.push(toLine(coords, parts, source));
  }
  return lines;
}

function componentOf(seed: number, touching: (e: End) => End[], ends: End[]): number[] {
  const seen = new Set([seed]);
  const stack = [seed];
  while (stack.length > 0) {
    const i = stack.pop()!;
    for (const e of [ends[2 * i]!, ends[2 * i + 1]!]) {
      for (const o of touching(e)) {
        if (!seen.has(o.piece)) {
          seen.add(o.piece);
          stack.push(o.piece);
        }
      }
    }
  }
  return [...seen].sort((a, b) => a - b);
}

function toLine(coords: LonLat[], parts: readonly LinePiece[], source: 'openstreetmap' | 'file'): CourseLine {
  let closed = false;
  if (coords.length >= 4 && roughDistanceM(coords[0]!, coords[coords.length - 1]!) <= JOIN_TOLERANCE_M) {
    closed = true;
    coords.pop();
  }
  const ways: OsmWayRef[] = [];
  for (const p of parts) if (p.way && !ways.some((w) => w.id === p.way!.id)) ways.push(p.way);
  const names = [...new Set(parts.map((p) => p.name).filter((n): n is string => n !== null))];
  const notes = [...new Set(parts.map((p) => p.description).filter((n): n is string => n !== null))];
  const geometry: GeometryProvenance = {
    source,
    ways: source === 'openstreetmap' ? ways : [],
    description: notes.length > 0 ? notes.join('; ') : null,
  };
  return { coordinates: coords, closed, name: names.length > 0 ? names.join(' / ') : null, geometry };
}

function describePiece(p: LinePiece, i: number): string {
  return p.way ? `way ${p.way.id}` : `line ${i + 1}`;
}

function fmt(p: LonLat): string {
  return `${p[1].toFixed(6)},${p[0].toFixed(6)}`;
}
