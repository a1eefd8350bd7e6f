/**
 * Response compression (br, gzip) negotiated from Accept-Encoding. The response cache keeps compressed
 * variants of its bodies; `compressStep` compresses everything else that is worth it (pages, any
 * uncached route) after the ETag step, and re-tags the body it changed, so an ETag always names the
 * exact bytes sent (a strong validator differs per content coding, RFC 9110 8.8.3).
 *
 * Implemented here rather than with @fastify/compress so that compression, caching and ETags agree on
 * one negotiation and one set of bytes.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { etagStep, tagOr304 } from './etag.js';

export type Encoding = 'br' | 'gzip' | 'identity';

/** Bodies smaller than this go out as they are: compression would save little and cost a round of CPU. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Brotli quality 5: close to gzip's speed with a better ratio (11, the default, takes seconds on the
 * demo day's body). Cached bodies are compressed once per change, the rest on every response.
 */
const BROTLI_OPTIONS = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
const GZIP_OPTIONS = { level: 6 };

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The coding to send for an Accept-Encoding header: br or gzip when the client accepts one (q > 0;
 * `*` counts for both), br first when both are equally wanted; identity otherwise (also when the client
 * refuses identity: sending it anyway is allowed, RFC 9110 12.5.3).
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding {
  if (header === undefined) return 'identity';
  if (typeof header === 'string') {
    // A client sends the same header on every request: its answer is remembered (a few distinct values).
    let encoding = NEGOTIATED.get(header);
    if (encoding === undefined) {
      encoding = negotiate(header);
      if (NEGOTIATED.size >= MAX_NEGOTIATED) NEGOTIATED.clear();
      NEGOTIATED.set(header, encoding);
    }
    return encoding;
  }
  return negotiate(header.join(','));
}

/** Accept-Encoding value -> the coding negotiated for it (cleared when full: values are few in practice). */
const NEGOTIATED = new Map<string, Encoding>();
const MAX_NEGOTIATED = 256;

function negotiate(value: string): Encoding {
  const q: Record<string, number> = {};
  for (const part of value.split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (!Number.isNaN(weight)) q[token] = weight;
  }
  const weightOf = (coding: string) => q[coding] ?? q['*'] ?? 0;
  const br = weightOf('br');
  const gz = Math.max(weightOf('gzip'), q['x-gzip'] ?? 0);
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return 'identity';
}

export async function compress(body: Buffer, encoding: Exclude<Encoding, 'identity'>): Promise<Buffer> {
  return encoding === 'br' ? brotliAsync(body, BROTLI_OPTIONS) : gzipAsync(body, GZIP_OPTIONS);
}

function compressSync(body: Buffer, encoding: Exclude<Encoding, 'identity'>): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body, GZIP_OPTIONS);
}

const COMPRESSIBLE = /^(application\/(json|problem\+json|x-ndjson)|text\/)/;

/** Adds accept-encoding to Vary, keeping what is there. */
export function varyOnEncoding(current: unknown): string {
  const existing = typeof current === 'string' && current !== '' ? current : '';
  if (/(^|,)\s*accept-encoding\s*(,|$)/i.test(existing)) return existing;
  return existing ? `${existing}, Accept-Encoding` : 'Accept-Encoding';
}

/**
 * The onSend step after the ETag's (api/etag.ts): compresses string and Buffer bodies of compressible
 * types at or over the threshold, unless a coding is already set (the response cache sets its own), and
 * re-tags what it compressed. Returns the payload to send.
 */
export function compressStep(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  if (reply.getHeader('content-encoding') !== undefined || reply.statusCode === 204 || reply.statusCode === 304)
    return payload;
  const type = String(reply.getHeader('content-type') ?? '');
  if (!COMPRESSIBLE.test(type) || Buffer.byteLength(payload) < COMPRESSION_THRESHOLD) return payload;
  reply.header('vary', varyOnEncoding(reply.getHeader('vary')));
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  if (encoding === 'identity') return payload;
  const body = compressSync(Buffer.isBuffer(payload) ? payload : Buffer.from(payload), encoding);
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  // a tagged body is tagged again as encoded (an ETag names the bytes sent)
  return reply.getHeader('etag') !== undefined ? tagOr304(request, reply, body) : body;
}

/**
 * The one onSend hook of the app: strong ETags and 304s (api/etag.ts), then compression. One hook
 * rather than two: it runs on every response, and most (the response cache's, tagged and encoded
 * already) need neither step.
 */
export function installEtagsAndCompression(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    done(null, compressStep(request, reply, etagStep(request, reply, payload)));
  });
}
