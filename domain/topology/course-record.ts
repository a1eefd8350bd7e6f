/**
 * The part of a topology block that today's Course schema (schemas/Course.avsc, CourseTopology) holds.
 * The rest (turns, profile, provenance, attribution) waits for the schema to grow; docs/topology.md.
 */
import type { CourseTopology } from '../avro-types.generated.js';
import type { TopologyBlock } from './types.js';

export function courseTopologyOf(block: TopologyBlock): CourseTopology {
  return {
    totalClimbM: block.totalClimbM,
    undulationIndex: block.undulationIndex,
    elevationRangeM: block.elevationRangeM,
    circuitLengthM: block.circuitLengthM,
  };
}
