/**
 * Course topology: read centrelines (GeoJSON, OSM XML) and elevation models (ESRI ASCII grid, SRTM
 * .hgt, GeoTIFF, zips of them), measure climb, undulation, turns and profile as courses.md defines
 * them, and generate demo topology. Pure: callers pass bytes and dates. See docs/topology.md.
 */
export { courseTopologyOf } from './course-record.js';
export {
  BNG,
  epsgDefinition,
  fromWgs84,
  localProjection,
  resolveCrs,
  toWgs84,
  WGS84,
  type ResolvedCrs,
} from './crs.js';
export { DemSampler, gridFromFunction, gridFromValues, PRODUCTS, type GridSpec, type ProductInfo } from './dem-grid.js';
export { isTopologyError, TopologyError, type TopologyErrorReason } from './errors.js';
export {
  defaultShape,
  GENERATED_ORIGIN,
  generatedCourse,
  generatedMeasurement,
  generatedTopology,
  YARD_M,
  type GeneratedCourse,
  type GeneratedCourseInput,
  type GeneratedCourseOptions,
} from './generated.js';
export { joinPieces, JOIN_TOLERANCE_M, type LinePiece } from './line-join.js';
export {
  measureTopology,
  measureTopologyDetailed,
  METHOD,
  OSM_ATTRIBUTION,
  smoothHeights,
  type MeasureOptions,
  type TopologyMeasurement,
} from './measure.js';
export { readAsciiGrid, type AsciiGridOptions } from './read-ascii-grid.js';
export { readGeoJson, type GeoJsonReadOptions } from './read-geojson.js';
export { readGeoTiff, readGeoTiffSource, type GeoTiffOptions, type LonLatBox } from './read-geotiff.js';
export { HGT_VOID, readHgt } from './read-hgt.js';
export { readDem, readGeometry, type DemReadOptions, type GeometryReadOptions } from './read-input.js';
export { readOsmXml, type OsmXmlReadOptions } from './read-osm-xml.js';
export { COURSE_SHAPES, type CourseShape } from './shapes.js';
export { TURN_RADIUS_M } from './turns.js';
export type * from './types.js';
