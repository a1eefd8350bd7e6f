/**
 * Confluent Schema Registry error bodies (`{error_code, message}`) and codes, so that clients written
 * for Confluent's registry (status checks, error_code switches) behave the same against this one.
 */
import { isRacingError } from '../../domain/errors.js';

export interface ConfluentErrorBody {
  error_code: number;
  message: string;
}

/** An error the registry answers with a Confluent status and error_code. */
export class RegistryHttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryHttpError';
  }

  body(): ConfluentErrorBody {
    return { error_code: this.errorCode, message: this.message };
  }
}

export const subjectNotFound = (subject: string) =>
  new RegistryHttpError(404, 40401, `Subject '${subject}' not found.`);

export const versionNotFound = (subject: string, version: number | string) =>
  new RegistryHttpError(404, 40402, `Version ${version} not found for subject '${subject}'.`);

export const schemaNotFound = (what?: string) =>
  new RegistryHttpError(404, 40403, what === undefined ? 'Schema not found.' : `Schema ${what} not found.`);

export const incompatibleSchema = (message: string) => new RegistryHttpError(409, 409, message);

export const invalidSchema = (detail: string) => new RegistryHttpError(422, 42201, `Invalid schema: ${detail}`);

export const invalidVersion = (version: string) =>
  new RegistryHttpError(
    422,
    42202,
    `The specified version '${version}' is not a valid version id. ` +
      'Allowed values are between [1, 2^31-1] and the string "latest"',
  );

export const invalidCompatibilityLevel = (level: unknown) =>
  new RegistryHttpError(
    422,
    42203,
    `Invalid compatibility level ${JSON.stringify(level)}: this registry enforces BACKWARD for every subject ` +
      '(the only level it accepts); see docs/registry.md',
  );

export const methodNotAllowed = (method: string, url: string) =>
  new RegistryHttpError(
    405,
    405,
    `${method} ${url} is not supported: this registry never deletes schemas (every registered version stays ` +
      'resolvable by id, so records written with it still decode); see docs/registry.md',
  );

/** Maps any error thrown by a handler, the store or Fastify itself to a status and a Confluent body. */
export function toConfluentError(e: unknown): RegistryHttpError {
  if (e instanceof RegistryHttpError) return e;
  if (isRacingError(e)) {
    switch (e.code) {
      case 'schema_incompatible':
        return incompatibleSchema(e.message);
      case 'validation_failed':
        return invalidSchema(e.message);
      case 'registry_unreachable':
        return new RegistryHttpError(500, 50002, `Operation timed out: ${e.message}`);
      default:
        return new RegistryHttpError(500, 50001, `Error in the backend data store: ${e.message}`);
    }
  }
  const status = (e as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Fastify's own client errors: unsupported media type, malformed or empty JSON, oversized body.
    return new RegistryHttpError(status, status, (e as Error).message);
  }
  return new RegistryHttpError(500, 50001, 'Error in the backend data store');
}
