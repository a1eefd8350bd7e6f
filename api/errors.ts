/**
 * RFC 9457 problem details. The only place where error codes become HTTP statuses. Every error the API
 * sends, including Fastify's own validation errors and unknown routes, leaves through here, so clients
 * see one shape: application/problem+json with type, title, status, detail, instance and code.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, isRacingError, RacingError } from '../domain/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';
/** Problem type URIs are identifiers (RFC 9457 section 3.1.1); docs/errors.md documents each one. */
export const PROBLEM_TYPE_BASE = 'https://racing.invalid/problems/';

export interface ProblemParam {
  in: 'query' | 'path' | 'body' | 'header';
  name: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  errors?: ProblemParam[];
}

const TITLES: Record<ErrorCode, string> = {
  validation_failed: 'Validation failed',
  not_found: 'Not found',
  missing_api_key: 'Missing API key',
  invalid_api_key: 'Invalid API key',
  range_too_large: 'Range too large',
  rate_limited: 'Rate limit exceeded',
  unknown_topic: 'Unknown topic',
  schema_not_found: 'Schema not found',
  schema_incompatible: 'Schema incompatible',
  bad_wire_format: 'Bad wire format',
  config_invalid: 'Invalid configuration',
  store_locked: 'Store locked',
  broker_unreachable: 'Broker unreachable',
  registry_unreachable: 'Schema registry unreachable',
  internal: 'Internal error',
  access_not_granted: 'API access not granted',
  method_not_allowed: 'Method not allowed',
  csrf_failed: 'Form check failed',
  invalid_credentials: 'Sign-in failed',
  not_ready: 'Not ready',
};

/** Every error code (the keys of a Record<ErrorCode, ...>, so the compiler keeps the list complete). */
export const ERROR_CODES = Object.keys(TITLES) as ErrorCode[];

/** HTTP status of an error code. Codes that are not the client's fault are 500. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'range_too_large':
      return 400;
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'invalid_credentials':
      return 401;
    case 'access_not_granted':
    case 'csrf_failed':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'rate_limited':
      return 429;
    case 'not_ready':
      return 503;
    default:
      return 500;
  }
}

/** The request path without the query string (the query could carry anything; we do not echo it). */
export function requestPath(request: FastifyRequest): string {
  const url = request.url;
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export function problem(
  code: ErrorCode,
  detail: string,
  instance: string,
  options: { status?: number; errors?: ProblemParam[] } = {},
): Problem {
  const p: Problem = {
    type: PROBLEM_TYPE_BASE + code,
    title: TITLES[code],
    status: options.status ?? httpStatusOf(code),
    detail,
    instance,
    code,
  };
  if (options.errors && options.errors.length > 0) p.errors = options.errors;
  return p;
}

export function sendProblem(reply: FastifyReply, p: Problem): FastifyReply {
  // A problem is never a cacheable representation; strip any validator a hook may have set.
  reply.removeHeader('etag');
  return reply.code(p.status).type(PROBLEM_CONTENT_TYPE).header('cache-control', 'no-store').send(p);
}

const LOCATION: Record<string, ProblemParam['in']> = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
};

interface AjvIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Turns Ajv issues into per-parameter messages that name the parameter, e.g. query parameter 'from'. */
function validationParams(error: FastifyError): ProblemParam[] {
  const where = LOCATION[error.validationContext ?? ''] ?? 'body';
  const issues = (error.validation ?? []) as unknown as AjvIssue[];
  return issues.map((issue) => {
    const missing = issue.params['missingProperty'];
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const name = typeof missing === 'string' ? (path ? `${path}.${missing}` : missing) : path || '(root)';
    let message = issue.message ?? 'is invalid';
    if (typeof missing === 'string') message = 'is required';
    else if (issue.keyword === 'format' && issue.params['format'] === 'date')
      message = 'must be a real calendar date in YYYY-MM-DD form';
    else if (issue.keyword === 'enum' && Array.isArray(issue.params['allowedValues']))
      message = `must be one of: ${(issue.params['allowedValues'] as unknown[]).join(', ')}`;
    else if (issue.keyword === 'additionalProperties')
      message = `has unknown property '${String(issue.params['additionalProperty'])}'`;
    return { in: where, name, message };
  });
}

function describe(params: ProblemParam[]): string {
  const labels: Record<ProblemParam['in'], string> = {
    query: 'query parameter',
    path: 'path parameter',
    body: 'body field',
    header: 'header',
  };
  const label = (p: ProblemParam) => labels[p.in];
  return params.map((p) => `${label(p)} '${p.name}' ${p.message}`).join('; ');
}

/** A 400 validation_failed error naming one parameter, thrown by handlers after the schema checks. */
export function invalidParam(where: ProblemParam['in'], name: string, message: string): RacingError {
  const param: ProblemParam = { in: where, name, message };
  return new RacingError('validation_failed', describe([param]), { details: { errors: [param] } });
}

/** Installs the error and not-found handlers on the root instance. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendProblem(
      reply,
      problem('not_found', `no route ${request.method} ${requestPath(request)}`, requestPath(request)),
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const instance = requestPath(request);
    if (isRacingError(error)) {
      const errors = error.details?.['errors'] as ProblemParam[] | undefined;
      const status = httpStatusOf(error.code);
      if (status >= 500) request.log.error({ err: error }, 'request failed');
      // Server-side messages can carry internals (paths, hosts); the code is stable and documented, the text is not sent.
      const detail = status >= 500 ? 'internal error' : error.message;
      sendProblem(reply, problem(error.code, detail, instance, errors ? { errors } : {}));
      return;
    }
    if (error.validation) {
      const errors = validationParams(error);
      sendProblem(reply, problem('validation_failed', describe(errors), instance, { errors }));
      return;
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 404) {
      sendProblem(reply, problem('not_found', error.message, instance));
      return;
    }
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (malformed JSON, unsupported media type, body too large): keep
      // the status Fastify chose, report it as a validation failure of the request.
      sendProblem(reply, problem('validation_failed', error.message, instance, { status }));
      return;
    }
    request.log.error({ err: error }, 'request failed');
    sendProblem(reply, problem('internal', 'internal error', instance));
  });
}
