/** keys and export through the running service's admin endpoint, or straight from the store when none runs. */
import { createWriteStream } from 'node:fs';
import { get as httpGet, request as httpRequest } from 'node:http';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { analyticsNdjson } from '../../api/admin.js';
import { RacingError } from '../../domain/errors.js';
import type { ServiceFile } from '../service-file.js';
import type { Runtime } from '../runtime.js';

export interface KeyInfo {
  id: string;
  name: string;
  createdAt: string;
  revokedAt?: string | null;
}

/** One request to the running service's admin listener; a problem answer becomes a RacingError. */
export async function call(s: ServiceFile, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${s.adminUrl}/admin/v1${path}`, {
    method,
    headers: { 'x-admin-token': s.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) {
    const text = await res.text();
    let detail = text;
    try {
      const p = JSON.parse(text) as { detail?: string; code?: string };
      detail = p.detail ?? text;
      if (p.code === 'not_found') throw new RacingError('not_found', detail);
    } catch (e) {
      if (e instanceof RacingError) throw e;
    }
    throw new RacingError('internal', `service answered ${res.status}: ${detail}`);
  }
  return res;
}

/**
 * A request to the admin endpoint that may take long (a publish or an import): node:http, which has no
 * response timeout (fetch gives up after 300 s without headers). Resolves with the body of a 2xx
 * answer; a problem answer becomes a RacingError with its code and detail.
 */
export function callAdmin(
  s: ServiceFile,
  method: string,
  path: string,
  body: Buffer | string,
  contentType: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const req = httpRequest(
      `${s.adminUrl}/admin/v1${path}`,
      {
        method,
        headers: { 'x-admin-token': s.token, 'content-type': contentType, 'content-length': String(payload.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) return resolve(text);
          let detail = text;
          let code = 'internal';
          try {
            const p = JSON.parse(text) as { detail?: string; code?: string };
            detail = p.detail ?? text;
            code = p.code ?? code;
          } catch {
            // not a problem document: the text itself
          }
          const known = code === 'not_found' || code === 'validation_failed';
          reject(
            new RacingError(
              known ? (code as 'not_found' | 'validation_failed') : 'internal',
              known ? detail : `service answered ${res.statusCode}: ${detail}`,
            ),
          );
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export type Target = { service: ServiceFile } | { rt: Runtime };

export async function createKey(
  t: Target,
  name: string,
): Promise<{ id: string; key: string; name: string; createdAt: string }> {
  if ('service' in t) return (await (await call(t.service, 'POST', '/keys', { name })).json()) as never;
  return t.rt.keys.create(name);
}

export async function listKeys(t: Target): Promise<KeyInfo[]> {
  if ('service' in t) {
    return ((await (await call(t.service, 'GET', '/keys')).json()) as { keys: KeyInfo[] }).keys;
  }
  return t.rt.keys.list();
}

export async function revokeKey(t: Target, id: string): Promise<void> {
  if ('service' in t) {
    await call(t.service, 'DELETE', `/keys/${encodeURIComponent(id)}`);
    return;
  }
  const ok = await t.rt.keys.revoke(id);
  if (!ok) throw new RacingError('not_found', `no key with id ${id}`);
}

/**
 * The running service's export as a Node stream. node:http rather than fetch(): undici's web-stream
 * body, piped into a sink that applies backpressure (a file), stalled at a few hundred rows/s.
 */
function exportStream(s: ServiceFile): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const req = httpGet(`${s.adminUrl}/admin/v1/export/analytics`, { headers: { 'x-admin-token': s.token } }, (res) => {
      if (res.statusCode === 200) return resolve(res);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => reject(new RacingError('internal', `service answered ${res.statusCode}: ${text}`)));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Writes every current row as canonical NDJSON (sorted by raceId then horseId) to a file or stdout. */
export async function exportAnalytics(t: Target, out: string | undefined): Promise<void> {
  const source = 'service' in t ? await exportStream(t.service) : analyticsNdjson(t.rt.view);
  const sink: Writable = out
    ? createWriteStream(out)
    : new Writable({ write: (c, _e, cb) => (process.stdout.write(c) ? cb() : process.stdout.once('drain', cb)) });
  await pipeline(source, sink);
}
