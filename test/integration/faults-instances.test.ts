/**
 * Faults (b) and (c) on the shared test broker, with real processes:
 * (b) the schema registry goes away for a while: publishing fails with a clear registry_unreachable,
 *     the running instance keeps processing and serving with the schemas it resolved, and after the
 *     registry restarts (same port, schemas replayed from _schemas) publishing resumes; same export.
 * (c) one of two instances is killed with SIGKILL during live processing: the other takes its race
 *     partitions over and its export equals an uninterrupted run.
 */
import { createServer } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Fixture, getJson, readiness, uninterruptedExport, waitFor } from './fault-support.js';

const brokers = inject('kafkaBrokers');
const fx = new Fixture();
afterAll(() => fx.cleanup());

const RANGE = ['--from', '2024-07-01', '--to', '2024-07-08', '--seed', '41'];
const SLICES = ['2024-07-04T00:00:00Z', '2024-07-05T00:00:00Z', '2024-07-06T00:00:00Z', '2024-07-07T00:00:00Z', 'end'];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function setup(prefix: string) {
  const registryPort = await freePort();
  const registryEnv = { KAFKA_BROKERS: brokers, RACING_TOPIC_PREFIX: prefix, REGISTRY_PORT: String(registryPort) };
  const startRegistry = () => fx.start(registryEnv, ['registry'], /schema registry on/);
  const registry = await startRegistry();
  const env = {
    RACING_MODE: 'kafka',
    KAFKA_BROKERS: brokers,
    RACING_TOPIC_PREFIX: prefix,
    SCHEMA_REGISTRY_URL: registry.url,
    RACING_CHECKPOINT_MS: '500',
    PORT: '0',
  };
  const publish = (since: string | undefined, until: string) => fx.publish(env, RANGE, since, until);
  const startInstance = async (id: string) => {
    const dir = fx.dir(`svc-${id}`);
    const started = await fx.start({ ...env, RACING_DATA_DIR: dir, RACING_INSTANCE_ID: id }, ['serve'], /serving on/);
    return { ...started, dir };
  };
  const exportOf = async (dir: string) =>
    (await fx.racing({ ...env, RACING_DATA_DIR: dir }, ['export', 'analytics'])).stdout;
  return { registry, startRegistry, env, publish, startInstance, exportOf };
}

async function caughtUp(url: string): Promise<true | undefined> {
  const r = await readiness(url);
  return r.status === 200 && r.body.lag['processor'] === 0 && r.body.lag['view'] === 0 ? true : undefined;
}

describe.skipIf(!brokers)('instances and the registry failing under live input', () => {
  it('(b) the registry unreachable for a while: clear errors, the instance carries on, publishing resumes', async () => {
    const s = await setup(`regfault${Date.now().toString(36)}.`);
    const expected = await uninterruptedExport(fx, [...RANGE, '--until', 'all']);
    await s.publish(undefined, SLICES[0]!);
    const instance = await s.startInstance('r1');
    await s.publish(SLICES[0], SLICES[1]!);
    await waitFor('the instance caught up', () => caughtUp(instance.url), 120_000);

    s.registry.child.kill('SIGTERM');
    await waitFor('the registry to stop', () => (s.registry.child.exitCode !== null ? true : undefined), 30_000);
    const refused = await s.publish(SLICES[1], SLICES[2]!).then(
      () => undefined,
      (e: { stderr?: string }) => e.stderr ?? '',
    );
    expect(refused).toMatch(/registry_unreachable/);
    expect(instance.child.exitCode).toBeNull();
    expect((await getJson(`${instance.url}/api/v1/health/live`)).status).toBe(200);
    expect((await readiness(instance.url)).status).toBe(200);

    await s.startRegistry(); // same port: the instance's client finds it again
    for (let i = 2; i < SLICES.length; i++) await s.publish(SLICES[i - 1], SLICES[i]!);
    await waitFor('the instance caught up again', () => caughtUp(instance.url), 120_000);
    await waitFor(
      'the export to equal the uninterrupted run',
      async () => ((await s.exportOf(instance.dir)) === expected ? true : undefined),
      60_000,
      2_000,
    );
  }, 480_000);

  it('(c) kill -9 of one of two instances during live processing: the other takes over, same export', async () => {
    const s = await setup(`killfault${Date.now().toString(36)}.`);
    const expected = await uninterruptedExport(fx, [...RANGE, '--until', 'all']);
    await s.publish(undefined, SLICES[0]!);
    const [a, b] = await Promise.all([s.startInstance('k1'), s.startInstance('k2')]);
    await waitFor(
      'both caught up',
      async () => ((await caughtUp(a!.url)) && (await caughtUp(b!.url)) ? true : undefined),
      120_000,
    );

    const feeding = (async () => {
      for (let i = 1; i < SLICES.length; i++) await s.publish(SLICES[i - 1], SLICES[i]!);
    })();
    // Kill b while the live input is being processed.
    await waitFor(
      'b processing live input',
      async () => (((await readiness(b!.url)).body.lag['processor'] ?? 0) > 0 ? true : undefined),
      60_000,
      100,
    ).catch(() => undefined);
    b!.child.kill('SIGKILL');
    await feeding;
    await waitFor('a caught up with every partition', () => caughtUp(a!.url), 120_000);
    await waitFor(
      'the export of a to equal the uninterrupted run',
      async () => ((await s.exportOf(a!.dir)) === expected ? true : undefined),
      90_000,
      2_000,
    );
  }, 480_000);
});
