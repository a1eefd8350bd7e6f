import type { RaceResult } from './avro-types.generated.js';

/**
 * The order of a race's result versions: by publishedAt, then, for two versions published at one
 * instant, by their content (a JSON text with sorted object keys, so the same whichever decoder made
 * the value). The greatest is the result in force; the processor and the API's read model both pick it
 * by this rule, so neither depends on the order the versions arrive in. 0 for equal versions.
 */
export function compareResultVersions(a: RaceResult, b: RaceResult): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt - b.publishedAt;
  const ta = canonicalText(a);
  const tb = canonicalText(b);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

function canonicalText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
