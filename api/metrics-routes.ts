/**
 * Operations endpoints: `/metrics` (Prometheus text format, prom-client), `/api/v1/health/live` and
 * `/api/v1/health/ready` (see streams/readiness.ts for what ready means), and the request counters of
 * every route. `installOperations(app, deps)` is called on the root instance so that its hook sees
 * every route.
 *
 * `/metrics` needs no API key (Prometheus scrapes it); with `METRICS_TOKEN` set it needs
 * `Authorization: Bearer <token>`. The health endpoints are always open (load balancers and
 * orchestrators probe them) and carry no data beyond figures of the pipeline.
 */
import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { PipelineCounts } from '../streams/metrics.js';
import type { ReadinessReport } from '../streams/readiness.js';
import { PROBLEM_CONTENT_TYPE, problem, requestPath } from './errors.js';
import { RequestMetrics } from './request-metrics.js';

export interface OperationsDeps {
  readiness: () => Promise<ReadinessReport>;
  pipeline: () => PipelineCounts;
  /** approximate bytes of the data dir's database on disk */
  storeBytes: () => Promise<number>;
  /** when set, /metrics needs `Authorization: Bearer <token>` */
  metricsToken?: string | null;
}

const READY_PATH = '/api/v1/health/ready';
const LIVE_PATH = '/api/v1/health/live';

/** The service's Prometheus registry, fed at scrape time from the pipeline and readiness sources. */
export function createServiceMetrics(deps: OperationsDeps): {
  registry: Registry;
  observeRequest: (r: FastifyRequest, s: FastifyReply) => void;
} {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counts = () => deps.pipeline();
  // Counters mirroring monotonic in-process sources are set to the source's value at each scrape.
  new Counter({
    name: 'racing_analytics_rows_emitted_total',
    help: 'Analytics rows produced to the analytics topic since the process started',
    registers,
    collect() {
      this.reset();
      this.inc(counts().rows);
    },
  });
  new Counter({
    name: 'racing_analytics_tombstones_emitted_total',
    help: 'Tombstones (withdrawn runners) produced to the analytics topic since the process started',
    registers,
    collect() {
      this.reset();
      this.inc(counts().tombstones);
    },
  });
  new Counter({
    name: 'racing_races_recomputed_total',
    help: 'Races whose rows the processor recomputed since the process started',
    registers,
    collect() {
      this.reset();
      this.inc(counts().recomputes);
    },
  });
  new Counter({
    name: 'racing_dead_letters_total',
    help: 'Input records sent to the dead-letter topic since the process started, by error code',
    labelNames: ['code'],
    registers,
    collect() {
      this.reset();
      for (const [code, n] of counts().deadLetters) this.inc({ code }, n);
    },
  });
  const ready = async () => deps.readiness();
  new Gauge({
    name: 'racing_input_lag_records',
    help: 'Records a consumer still has to process, per topic and partition (absent while the log is unreachable)',
    labelNames: ['consumer', 'topic', 'partition'],
    registers,
    async collect() {
      this.reset();
      for (const p of (await ready()).partitions) {
        this.set({ consumer: p.consumer, topic: p.topic, partition: String(p.partition) }, p.lag);
      }
    },
  });
  new Gauge({
    name: 'racing_ready',
    help: '1 when /api/v1/health/ready answers 200',
    registers,
    async collect() {
      this.set((await ready()).ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'racing_log_reachable',
    help: '1 when the log (the Kafka broker in Kafka mode) answered the last readiness probe',
    registers,
    async collect() {
      this.set((await ready()).log.reachable ? 1 : 0);
    },
  });
  new Gauge({
    name: 'racing_task_restarts',
    help: 'Times a background task (processor, view, replication) was started again after a failure',
    labelNames: ['task'],
    registers,
    async collect() {
      this.reset();
      for (const [task, t] of Object.entries((await ready()).tasks)) this.set({ task }, t.restarts);
    },
  });
  new Gauge({
    name: 'racing_store_size_bytes',
    help: "Approximate size on disk of the data dir's database",
    registers,
    async collect() {
      this.set(await deps.storeBytes());
    },
  });
  const requests = new RequestMetrics(registry);
  const observeRequest = (request: FastifyRequest, reply: FastifyReply) => {
    // The route pattern, never the raw URL: ids and query strings would make a series per request.
    requests.record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  };
  return { registry, observeRequest };
}

/** Registers /metrics and the health endpoints, and counts every request of `app`. */
export function installOperations(app: FastifyInstance, deps: OperationsDeps): void {
  const { registry, observeRequest } = createServiceMetrics(deps);
  // A callback hook: it runs on every response, and a promise per request costs more than the tally.
  app.addHook('onResponse', (request, reply, done) => {
    observeRequest(request, reply);
    done();
  });
  const token = deps.metricsToken ? Buffer.from(`Bearer ${deps.metricsToken}`) : undefined;

  // access 'page': not an API resource, so it stays out of the OpenAPI document
  app.get('/metrics', { config: { access: 'page' } }, async (request, reply) => {
    if (token !== undefined) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== token.length || !timingSafeEqual(given, token)) {
        return reply
          .code(401)
          .type(PROBLEM_CONTENT_TYPE)
          .header('www-authenticate', 'Bearer')
          .send(
            problem(
              'invalid_api_key',
              'METRICS_TOKEN is set: send Authorization: Bearer <token>',
              requestPath(request),
            ),
          );
      }
    }
    return reply
      .header('cache-control', 'no-store')
      .type(registry.contentType)
      .send(await registry.metrics());
  });

  app.get(
    LIVE_PATH,
    {
      config: { access: 'public' },
      schema: {
        summary: 'Liveness: the process is up and serving (no key)',
        tags: ['meta'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' as const }),
  );

  app.get(
    READY_PATH,
    {
      config: { access: 'public', problems: { 503: 'not_ready, with the same report' } },
      schema: {
        summary: 'Readiness: caught up with the input and able to reach the log (no key)',
        description:
          'Ready when the log (the Kafka broker in Kafka mode) answers, the processor and the view are at most ' +
          'the configured number of records behind, the processor is making progress and no background task is ' +
          'restarting. 503 application/problem+json (code not_ready) with the same report otherwise.',
        tags: ['meta'],
        response: {
          200: Type.Object(
            { status: Type.Literal('ready'), ready: Type.Literal(true) },
            { additionalProperties: true, description: 'the readiness report' },
          ),
          // Sent as application/problem+json (documented by config.problems); any object, as built.
          503: Type.Object({}, { additionalProperties: true }),
        },
      },
    },
    async (request, reply) => {
      const c = deps.pipeline();
      const report = {
        ...(await deps.readiness()),
        pipeline: {
          rows: c.rows,
          tombstones: c.tombstones,
          recomputes: c.recomputes,
          deadLetters: Object.fromEntries(c.deadLetters),
        },
      };
      reply.header('cache-control', 'no-store');
      if (report.ready) return reply.send({ status: 'ready', ...report });
      return reply
        .code(503)
        .type(PROBLEM_CONTENT_TYPE)
        .send({ ...problem('not_ready', report.reasons.join('; '), requestPath(request)), ...report });
    },
  );
}
