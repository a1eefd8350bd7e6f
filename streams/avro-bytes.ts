/**
 * Avro binary encoding without a fresh zero-filled allocation per value. avsc's `toBuffer` allocates
 * every result with `Buffer.alloc` (never pooled, zero-filled): at full size that was about 8% of a
 * rebuild's main thread (state checkpoints and output rows). Here values are encoded straight into a
 * shared slab and handed out as views of it; a new slab is started when one fills up, and a full slab
 * is freed once the views into it are gone (they are short-lived: a store batch or a produce copies
 * them). Callers must treat the result as read-only.
 */
import type avro from 'avsc';

const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let used = 0;

/** The Avro binary of `value`, after `header` bytes left for the caller to fill in (e.g. the wire-format prefix). */
export function avroBytes(type: avro.Type, value: unknown, header = 0): Buffer {
  for (;;) {
    const start = used;
    const end = type.encode(value, slab, start + header);
    if (end >= 0) {
      used = end;
      return slab.subarray(start, end);
    }
    // did not fit: `-end` bytes were missing; start a slab big enough for this value
    const size = slab.length - end - start;
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, size));
    used = 0;
  }
}

/**
 * `bytes` bytes of the shared slab starting at a multiple of 8 (so a Float64Array can view them), for
 * a caller to fill in; read-only to everyone else once filled, like avroBytes' results.
 */
export function slabBytes(bytes: number): Buffer {
  // (a slab of SLAB_BYTES has an ArrayBuffer of its own, at offset 0; aligned on the buffer all the same)
  let start = ((slab.byteOffset + used + 7) & ~7) - slab.byteOffset;
  if (start + bytes > slab.length) {
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, bytes));
    start = 0;
  }
  used = start + bytes;
  return slab.subarray(start, used);
}

/**
 * `parts` end to end, then the Avro binary of `value`, as one view of the shared slab (read-only, as
 * avroBytes' results): a record whose first fields' bytes the caller already has. The parts are the
 * header avroBytes leaves. A string part is bytes held as latin1 text, one character a byte (bytes kept
 * on the heap: see engine-state-codec.ts, EncodedRuns).
 */
export function avroBytesAfter(parts: readonly (Uint8Array | string)[], type: avro.Type, value: unknown): Buffer {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = avroBytes(type, value, length);
  let pos = 0;
  for (const p of parts) {
    if (typeof p === 'string') out.write(p, pos, p.length, 'latin1');
    else out.set(p, pos);
    pos += p.length;
  }
  return out;
}
