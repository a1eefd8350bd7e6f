/**
 * Request counts and latencies by route, tallied on plain numbers per request and handed to prom-client
 * only when /metrics is scraped. prom-client's own `inc`/`observe` validate and hash the label set on
 * every call, several microseconds per request on a route that answers from the response cache in a
 * few tens; the tally costs one Map lookup and a bucket search.
 *
 * Exposes the same two series as before: `racing_http_requests_total{method,route,status}` (a counter)
 * and `racing_http_request_duration_seconds{method,route}` (a histogram with cumulative `le` buckets,
 * `_sum` and `_count`), registered on the given registry.
 */
import { Counter, type Registry } from 'prom-client';

export const REQUEST_LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface RouteTally {
  method: string;
  route: string;
  /** status code -> requests */
  statuses: Map<number, number>;
  /** requests per bucket (not cumulative); the last slot is over the largest bound */
  buckets: number[];
  count: number;
  sum: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class RequestMetrics {
  /** route pattern -> method -> tally (two lookups rather than a key string built per request) */
  readonly #byRoute = new Map<string, Map<string, RouteTally>>();
  /** every tally, in the order first seen (what a scrape walks) */
  readonly #routes: RouteTally[] = [];

  constructor(registry: Registry) {
    const routes = this.#routes;
    new Counter({
      name: 'racing_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const t of routes) {
          for (const [status, n] of t.statuses)
            this.inc({ method: t.method, route: t.route, status: String(status) }, n);
        }
      },
    });
    // A histogram whose values come from the tally: prom-client's Registry formats any metric object
    // with a name, help, type and get().
    const name = 'racing_http_request_duration_seconds';
    const help = 'HTTP request latency by method and route pattern';
    registry.registerMetric({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: this.#histogramValues(name) }),
    } as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Counts one request: its method, route pattern, status and latency in seconds. */
  record(method: string, route: string, status: number, seconds: number): void {
    let methods = this.#byRoute.get(route);
    if (!methods) {
      methods = new Map();
      this.#byRoute.set(route, methods);
    }
    let t = methods.get(method);
    if (!t) {
      t = {
        method,
        route,
        statuses: new Map(),
        buckets: new Array<number>(REQUEST_LATENCY_BUCKETS.length + 1).fill(0),
        count: 0,
        sum: 0,
      };
      methods.set(method, t);
      this.#routes.push(t);
    }
    t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
    let b = 0;
    while (b < REQUEST_LATENCY_BUCKETS.length && seconds > REQUEST_LATENCY_BUCKETS[b]!) b++;
    t.buckets[b]! += 1;
    t.count += 1;
    t.sum += seconds;
  }

  #histogramValues(name: string): MetricValue[] {
    const values: MetricValue[] = [];
    for (const t of this.#routes) {
      const labels = { method: t.method, route: t.route };
      let cumulative = 0;
      for (const [i, bound] of REQUEST_LATENCY_BUCKETS.entries()) {
        cumulative += t.buckets[i]!;
        values.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', ...labels }, value: t.count, metricName: `${name}_bucket` });
      values.push({ labels, value: t.sum, metricName: `${name}_sum` });
      values.push({ labels, value: t.count, metricName: `${name}_count` });
    }
    return values;
  }
}
