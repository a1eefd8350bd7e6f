/**
 * A measured block as the Course record's `topology` (schemas/Course.avsc, CourseTopology): the same
 * figures, the measured centreline (oriented, from the start, 7 dp = about 1 cm) and provenance
 * flattened into the schema's fields.
 */
import type { CourseTopology } from '../avro-types.generated.js';
import type { LonLat, TopologyBlock } from './types.js';

export function courseTopologyOf(block: TopologyBlock, centreline: readonly LonLat[]): CourseTopology {
  const p = block.provenance;
  return {
    totalClimbM: block.totalClimbM,
    undulationIndex: block.undulationIndex,
    elevationRangeM: block.elevationRangeM,
    circuitLengthM: block.circuitLengthM,
    totalDescentM: block.totalDescentM,
    closed: block.closed,
    centreline: centreline.map(([lon, lat]) => [round7(lon), round7(lat)]),
    turns: block.turns.map((t) => ({
      startM: t.startM,
      endM: t.endM,
      headingChangeDeg: t.headingChangeDeg,
      minRadiusM: t.minRadiusM,
      severity: t.severity,
    })),
    profile: block.profile.map((q) => ({ distanceM: q.distanceM, heightM: q.heightM })),
    provenance: {
      geometrySource: p.geometry.source,
      osmWays: p.geometry.ways.map((w) => ({ id: w.id, version: w.version })),
      elevationSource: p.elevation.source,
      demProducts: [...p.elevation.products],
      demTiles: [...p.elevation.tiles],
      measuredOn: p.measuredOn,
      method: p.method,
    },
    attribution: [...block.attribution],
  };
}

function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}
