import type { RaceCard } from './avro-types.generated.js';

/**
 * The order of a race's card versions: by publishedAt, then version. The latest version is the
 * greatest; the processor and the API's read model both pick it by this rule.
 */
export function compareCardVersions(a: RaceCard, b: RaceCard): number {
  return a.publishedAt - b.publishedAt || a.version - b.version;
}
