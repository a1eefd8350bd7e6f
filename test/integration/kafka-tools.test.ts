/**
 * `npm run kafka:console -- <tool> ...` runs Kafka's own command-line tools from the cached jars
 * against the test broker: topics, console producer and console consumer, consumer groups.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const brokers = inject('kafkaBrokers');
const CONSOLE = join(import.meta.dirname, '..', '..', 'scripts', 'kafka', 'console.mjs');

function tool(args: string[], input?: string) {
  const child = run(process.execPath, [CONSOLE, ...args], {
    env: { ...process.env, KAFKA_BROKERS: brokers },
    timeout: 90_000,
  });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return child;
}

describe.skipIf(!brokers)('Kafka console tools from the jar cache', () => {
  it('creates a topic, produces and consumes keyed records, lists the consumer group', async () => {
    const topic = `t${Date.now().toString(36)}.console`;
    await tool(['topics', '--create', '--topic', topic, '--partitions', '2']);
    const { stdout: topics } = await tool(['topics', '--list']);
    expect(topics.split('\n')).toContain(topic);

    await tool(
      ['producer', '--topic', topic, '--property', 'parse.key=true', '--property', 'key.separator=:'],
      'a:1\nb:2\nc:3\n',
    );
    const { stdout } = await tool([
      'consumer',
      '--topic',
      topic,
      '--from-beginning',
      '--max-messages',
      '3',
      '--group',
      `${topic}.reader`,
      '--property',
      'print.key=true',
    ]);
    expect(stdout.trim().split('\n').sort()).toEqual(['a\t1', 'b\t2', 'c\t3']);

    const { stdout: groups } = await tool(['consumer-groups', '--describe', '--group', `${topic}.reader`]);
    expect(groups).toContain(topic);
  }, 120_000);

  it('names the tools when given an unknown one', async () => {
    await expect(tool(['no-such-tool'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('consumer, producer, topics'),
    });
  });
});
