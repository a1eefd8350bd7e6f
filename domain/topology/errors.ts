/**
 * Errors of the topology pipeline. They join the service's one error family as `validation_failed`
 * (every one is caused by the input files or options, none is retriable) and add a stable `reason` that
 * says which input is wrong. The reason lives beside the family's `code` rather than as new codes
 * because `ErrorCode` is mapped exhaustively to HTTP titles in api/; docs/topology.md lists the reasons.
 */
import { RacingError } from '../errors.js';

export type TopologyErrorReason =
  /** the geometry file is not valid JSON / XML, or a coordinate is malformed */
  | 'geometry_parse'
  /** the geometry file holds no usable line (no LineString, no way tagged as a racecourse) */
  | 'geometry_no_line'
  /** a line with fewer than two distinct points, or of zero length */
  | 'geometry_too_short'
  /** pieces meet three or more at one point, so they do not join into one line */
  | 'geometry_branched'
  /** an elevation file whose header or values cannot be read */
  | 'dem_parse'
  /** an elevation file of an impossible size (e.g. an .hgt that is not 1201² or 3601² samples) */
  | 'dem_corrupt'
  /** a resampled point of the line lies outside every elevation model given */
  | 'dem_no_coverage'
  /** a resampled point of the line needs a NODATA / void cell */
  | 'dem_nodata'
  /** a reference system proj4 does not know, or none where one is needed */
  | 'crs_unknown'
  /** the winning post given lies too far from a closed line to start the circuit there */
  | 'winning_post_off_line'
  /** an option is malformed (a date that is not YYYY-MM-DD, a negative length...) */
  | 'option_invalid';

export class TopologyError extends RacingError {
  readonly reason: TopologyErrorReason;

  constructor(
    reason: TopologyErrorReason,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super('validation_failed', message, { ...options, retriable: false, details: { reason, ...options.details } });
    this.name = 'TopologyError';
    this.reason = reason;
  }
}

export function isTopologyError(e: unknown): e is TopologyError {
  return e instanceof TopologyError;
}
