/**
 * The two schema questions the registry server asks, answered with the embedded registry's helpers so
 * that both registries agree on what "identical" and "BACKWARD compatible" mean.
 */
import { RacingError } from '../../domain/errors.js';
import { assertBackwardCompatible, canonicalSchema } from '../adapters/embedded-registry.js';

/**
 * Canonical text of an Avro schema (what ids are assigned to and identical schemas are compared by).
 * Throws RacingError `validation_failed` naming the problem for text that is not an Avro schema.
 */
export function parseAvroSchema(text: string): string {
  try {
    return canonicalSchema(text);
  } catch (cause) {
    throw new RacingError('validation_failed', `invalid Avro schema: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Why `reader` cannot read data written with `writer` (BACKWARD), or undefined when it can. Both are
 * canonical schema texts.
 */
export function backwardProblem(reader: string, writer: string): string | undefined {
  try {
    assertBackwardCompatible('', reader, writer);
    return undefined;
  } catch (e) {
    // assertBackwardCompatible wraps avsc's resolver error, which names the field or type at fault.
    const cause = (e as RacingError).cause;
    return cause instanceof Error ? cause.message : (e as Error).message;
  }
}
