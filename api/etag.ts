/**
 * Strong ETags for every GET 200 (SHA-256 of the exact body bytes) and 304 for a matching
 * If-None-Match. Computed after serialisation, so the tag always describes the bytes sent.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export function etagOf(body: string | Buffer): string {
  return '"' + createHash('sha256').update(body).digest('base64url') + '"';
}

const TAG_RE = /(?:W\/)?"[^"]*"/g;

/** RFC 9110 13.1.2: If-None-Match uses the weak comparison, and `*` matches any current representation. */
export function ifNoneMatchMatches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const m of value.matchAll(TAG_RE)) if (m[0].replace(/^W\//, '') === opaque) return true;
  return false;
}

/**
 * The first onSend step (api/compression.ts installs both): tags a GET or HEAD 200 string or Buffer body
 * that has no ETag yet, and turns it into a 304 when If-None-Match matches. Returns the payload to send.
 */
export function etagStep(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
  // Streams (the NDJSON export) are not buffered just to be hashed.
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  // The response cache sends its bytes with their tag and has answered If-None-Match itself.
  if (reply.getHeader('etag') !== undefined) return payload;
  return tagOr304(request, reply, payload);
}

/**
 * Tags `body` (the bytes about to be sent) with its strong ETag; when If-None-Match matches, turns the
 * response into an empty 304 instead. Returns what to send.
 */
export function tagOr304(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): string | Buffer {
  const etag = etagOf(body);
  reply.header('etag', etag);
  if (!ifNoneMatchMatches(request.headers['if-none-match'], etag)) return body;
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  reply.removeHeader('content-encoding');
  return '';
}
