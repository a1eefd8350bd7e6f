/**
 * One error family for the whole service. `code` is stable and listed in docs/errors.md; HTTP status is
 * mapped only in api/.
 */
export type ErrorCode =
  | 'validation_failed'
  | 'not_found'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'range_too_large'
  | 'rate_limited'
  | 'unknown_topic'
  | 'schema_not_found'
  | 'schema_incompatible'
  | 'bad_wire_format'
  | 'config_invalid'
  | 'store_locked'
  | 'broker_unreachable'
  | 'registry_unreachable'
  | 'internal'
  | 'access_not_granted'
  | 'method_not_allowed'
  | 'csrf_failed'
  | 'invalid_credentials'
  | 'not_ready';

export class RacingError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retriable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RacingError';
    this.code = code;
    this.retriable = options.retriable ?? false;
    this.details = options.details;
  }
}

export function isRacingError(e: unknown): e is RacingError {
  return e instanceof RacingError;
}
