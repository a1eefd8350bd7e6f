/**
 * Canonical JSON: object keys sorted by UTF-16 code units (recursively), no insignificant whitespace,
 * numbers and strings exactly as `JSON.stringify` prints them. For the values this service emits
 * (finite doubles, strings, booleans, null, arrays, plain objects) this is RFC 8785 (JCS), so two
 * producers of the same value produce the same bytes, and a line can be hashed or diffed as text.
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, new Set());
  if (out === undefined) throw new TypeError('canonicalJson: value is not representable as JSON');
  return out;
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // JCS has no representation for NaN or the infinities; JSON.stringify would silently print null.
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: bigint is not representable');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  const obj = value as object;
  const toJson = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return write(toJson.call(obj), seen);
  if (seen.has(obj)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      // Like JSON.stringify: holes, undefined and functions inside arrays become null.
      return '[' + obj.map((v: unknown) => write(v, seen) ?? 'null').join(',') + ']';
    }
    const record = obj as Record<string, unknown>;
    // Array.prototype.sort without a comparator orders strings by UTF-16 code units, as JCS requires.
    const keys = Object.keys(record).sort();
    const parts: string[] = [];
    for (const k of keys) {
      const v = write(record[k], seen);
      if (v !== undefined) parts.push(JSON.stringify(k) + ':' + v);
    }
    return '{' + parts.join(',') + '}';
  } finally {
    seen.delete(obj);
  }
}
