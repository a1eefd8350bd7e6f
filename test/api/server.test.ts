import { describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { startServer } from '../../api/server.js';
import { silentLogger } from '../../domain/logger.js';
import { sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';

describe('startServer', () => {
  it('listens on the given host and port and serves the app', async () => {
    const app = buildApp({
      readModel: sampleReadModel(),
      keys: new KeyStore(memoryStore()),
      config: apiConfig({ port: 0 }),
      logger: silentLogger(),
    });
    try {
      const address = await startServer(app, { host: '127.0.0.1', port: 0 });
      expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${address}/api/v1/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
    } finally {
      await app.close();
    }
  });
});
