/**
 * The layer rule of eslint.config.js (layers point one way: domain <- state <- streams <- api <- cli;
 * only adapters/ import the Kafka, LevelDB and registry clients), run by ESLint itself on small texts
 * placed in each layer: static imports, re-exports and dynamic import() alike.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [res] = await eslint.lintText(code, { filePath });
  return res!.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => `${m.line}:${m.ruleId}`);
}

describe('eslint layer rule', () => {
  it('refuses an import of a layer above, however the path is spelled and whether static or dynamic', async () => {
    const code = [
      "import type { A } from '../api/app.js';",
      "import type { B } from './../api/app.js';",
      "export type { C } from '../state/../cli/main.js';",
      "export const d = (): Promise<unknown> => import('../api/app.js');",
      "export const e = (): Promise<unknown> => import('./../cli/main.js');",
      'export type F = A | B;',
    ].join('\n');
    expect(await layerErrors('streams/x.ts', code)).toEqual([
      '1:no-restricted-imports',
      '2:no-restricted-imports',
      '3:no-restricted-imports',
      '4:no-restricted-syntax',
      '5:no-restricted-syntax',
    ]);
  });

  it('allows the layers below and the same layer', async () => {
    const code = [
      "import type { A } from '../domain/codes.js';",
      "import type { B } from '../state/read-model-port.js';",
      "import type { C } from './engine.js';",
      "export const d = (): Promise<unknown> => import('../domain/time.js');",
      'export type E = A | B | C;',
    ].join('\n');
    expect(await layerErrors('streams/x.ts', code)).toEqual([]);
    expect(await layerErrors('cli/x.ts', "export const a = (): Promise<unknown> => import('../api/app.js');")).toEqual(
      [],
    );
  });

  it('keeps domain free of every layer above it', async () => {
    for (const above of ['state', 'streams', 'api', 'cli']) {
      expect(
        await layerErrors('domain/x.ts', `export const a = (): Promise<unknown> => import('../${above}/y.js');`),
      ).toEqual(['1:no-restricted-syntax']);
    }
  });

  it('lets only adapters/ import the Kafka, LevelDB and registry clients, statically or dynamically', async () => {
    const code = [
      "import { Kafka } from 'kafkajs';",
      "export const l = (): Promise<unknown> => import('classic-level');",
      "export const r = (): Promise<unknown> => import('@kafkajs/confluent-schema-registry');",
      'export const k = Kafka;',
    ].join('\n');
    expect(await layerErrors('state/x.ts', code)).toEqual([
      '1:no-restricted-imports',
      '2:no-restricted-syntax',
      '3:no-restricted-syntax',
    ]);
    expect(await layerErrors('state/adapters/x.ts', code)).toEqual([]);
  });
});
