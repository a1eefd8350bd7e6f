/**
 * The request tally against prom-client's own Counter and Histogram fed the same requests: the scraped
 * text must be the same, bucket for bucket.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_LATENCY_BUCKETS, RequestMetrics } from '../../api/request-metrics.js';

const REQUESTS: [string, string, number, number][] = [
  ['GET', '/api/v1/races/:raceId/analytics', 200, 0.0004],
  ['GET', '/api/v1/races/:raceId/analytics', 200, 0.001], // on a bound: counted in it (le is <=)
  ['GET', '/api/v1/races/:raceId/analytics', 304, 0.0031],
  ['GET', '/api/v1/races/:raceId/analytics', 404, 0.02],
  ['GET', '/api/v1/races', 200, 0.3],
  ['POST', '/sign-in', 303, 0.08],
  ['GET', 'unmatched', 404, 12], // over the largest bound: only in +Inf
];

async function scrape(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith('racing_http_'));
}

describe('request metrics', () => {
  it('scrapes exactly what prom-client reports for the same requests', async () => {
    const tallied = new Registry();
    const metrics = new RequestMetrics(tallied);
    const reference = new Registry();
    const counter = new Counter({
      name: 'racing_http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [reference],
    });
    const histogram = new Histogram({
      name: 'racing_http_request_duration_seconds',
      help: 'HTTP request latency by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [...REQUEST_LATENCY_BUCKETS],
      registers: [reference],
    });
    for (const [method, route, status, seconds] of REQUESTS) {
      metrics.record(method, route, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route }, seconds);
    }
    const got = await scrape(tallied);
    expect(got.length).toBeGreaterThan(40);
    expect(got.sort()).toEqual((await scrape(reference)).sort());
    expect(got).toContain(
      'racing_http_requests_total{method="GET",route="/api/v1/races/:raceId/analytics",status="200"} 2',
    );
    expect(got).toContain(
      'racing_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/api/v1/races/:raceId/analytics"} 2',
    );
    expect(got).toContain('racing_http_request_duration_seconds_bucket{le="10",method="GET",route="unmatched"} 0');
    expect(got).toContain('racing_http_request_duration_seconds_count{method="GET",route="unmatched"} 1');
  });

  it('counts on between scrapes (counters never go back)', async () => {
    const registry = new Registry();
    const metrics = new RequestMetrics(registry);
    metrics.record('GET', '/api/v1/races', 200, 0.002);
    await scrape(registry);
    metrics.record('GET', '/api/v1/races', 200, 0.002);
    const lines = await scrape(registry);
    expect(lines).toContain('racing_http_requests_total{method="GET",route="/api/v1/races",status="200"} 2');
    expect(lines).toContain('racing_http_request_duration_seconds_count{method="GET",route="/api/v1/races"} 2');
  });
});
