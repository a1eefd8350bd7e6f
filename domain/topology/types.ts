/**
 * Types of the course-topology pipeline (docs/topology.md defines every field). Lines travel as WGS84
 * longitude/latitude, as GeoJSON does; elevation grids stay in their own reference system and are
 * sampled through proj4.
 */

/** WGS84 longitude, latitude in degrees (GeoJSON order). */
export type LonLat = readonly [lon: number, lat: number];
/** Planar coordinates in metres (or degrees for a geographic grid). */
export type XY = readonly [x: number, y: number];

/** The running direction of a course, as the course list writes it. */
export type RunningDirection = 'left' | 'right' | 'straight' | 'figure-of-eight';

/** An OpenStreetMap way that contributed to a line; version null when the file does not carry it. */
export interface OsmWayRef {
  readonly id: number;
  readonly version: number | null;
}

/** Where a line's geometry came from. Only `openstreetmap` brings the ODbL attribution. */
export interface GeometryProvenance {
  readonly source: 'openstreetmap' | 'file' | 'generated';
  /** OSM ways in joining order (empty unless the source is openstreetmap) */
  readonly ways: readonly OsmWayRef[];
  /** free text from the file (its name / note property) or the generator's seed and shape */
  readonly description: string | null;
}

/** One course centreline, joined from its pieces. */
export interface CourseLine {
  /** vertices in drawing order after joining; a closed line does not repeat its first vertex */
  readonly coordinates: readonly LonLat[];
  readonly closed: boolean;
  readonly name: string | null;
  readonly geometry: GeometryProvenance;
}

/** Elevation products the pipeline recognises; anything else is `other` (no attribution is claimed). */
export type DemProduct = 'os-terrain-50' | 'eu-dem' | 'srtm' | 'generated' | 'other';

/**
 * A regular elevation grid. Heights are given at cell centres: column c, row r (row 0 is the northern
 * row) sits at (x0 + c*dx, y0 - r*dy) in the grid's reference system.
 */
export interface ElevationGrid {
  readonly product: DemProduct;
  /** the tile's name (file name without extension, e.g. ST76, N51W002, eu_dem_v11_E30N30) */
  readonly tile: string;
  /** proj4 definition of the grid's reference system */
  readonly crs: string;
  /** short name of the reference system for messages (EPSG:27700, or 'WKT', 'proj4 string') */
  readonly crsName: string;
  readonly ncols: number;
  readonly nrows: number;
  readonly x0: number;
  readonly y0: number;
  readonly dx: number;
  readonly dy: number;
  /** row-major heights in metres, row 0 first */
  readonly values: Float32Array | Float64Array;
  /** the void marker, or null when the grid has none */
  readonly nodata: number | null;
}

/** One turn: a maximal stretch of one hand where the radius of curvature is under 400 m. */
export interface TopologyTurn {
  /** distance from the start to the start of the turn's first 10 m segment (m, whole) */
  readonly startM: number;
  /** distance to the end of its last segment (m, whole); above circuitLengthM when it runs through the start */
  readonly endM: number;
  /** heading of the segment after the turn minus that of the segment before it, left positive (deg, 1 dp) */
  readonly headingChangeDeg: number;
  readonly hand: 'left' | 'right';
  /** smallest radius of curvature inside the turn (m, 1 dp) */
  readonly minRadiusM: number;
  /** 1 gentle (min radius >= 200 m), 2 moderate (100-200 m), 3 sharp (< 100 m) */
  readonly severity: 1 | 2 | 3;
}

export interface ProfilePoint {
  /** distance from the start (m) */
  readonly distanceM: number;
  /** smoothed height (m above the DEM's datum, 1 dp) */
  readonly heightM: number;
}

export interface TopologyProvenance {
  readonly geometry: GeometryProvenance;
  readonly elevation: {
    readonly source: 'dem' | 'generated';
    /** display names of the products whose cells were used (e.g. 'OS Terrain 50') */
    readonly products: readonly string[];
    /** tiles whose cells were used, sorted */
    readonly tiles: readonly string[];
  };
  /** YYYY-MM-DD, given by the caller */
  readonly measuredOn: string;
  /** identifies the definitions used (docs/topology.md), so a later change of method is visible */
  readonly method: string;
}

/** The measured topology of one course line (docs/topology.md). */
export interface TopologyBlock {
  /** length of one circuit (closed line) or of the line (open), m, 1 dp */
  readonly circuitLengthM: number;
  readonly closed: boolean;
  /** the running direction the line was oriented to; null = unknown, measured as drawn */
  readonly direction: RunningDirection | null;
  /** what fixed the orientation */
  readonly orientedBy: 'signed-area' | 'net-turning' | 'winning-post' | 'as-drawn';
  /** where the measurement starts (the winning post on a circuit when known), 7 dp */
  readonly start: LonLat;
  readonly totalClimbM: number;
  readonly totalDescentM: number;
  readonly elevationRangeM: number;
  readonly minHeightM: number;
  readonly maxHeightM: number;
  /** (climb + descent) / length in km, 2 dp */
  readonly undulationIndex: number;
  readonly turns: readonly TopologyTurn[];
  readonly profile: readonly ProfilePoint[];
  readonly provenance: TopologyProvenance;
  /** attribution texts of exactly the sources this block used */
  readonly attribution: readonly string[];
}
