/** docs/errors.md and the code agree both ways: every code is documented with its status, nothing else is. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, httpStatusOf } from '../../api/errors.js';

const doc = readFileSync(join(import.meta.dirname, '../../docs/errors.md'), 'utf8');

/** The rows of the "## Codes" table: code -> HTTP column. */
function documented(): Map<string, string> {
  const section = doc.slice(doc.indexOf('## Codes'));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([a-z_]+)`\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (m) rows.set(m[1]!, m[2]!);
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('documents every error code, and only those', () => {
    const rows = documented();
    expect(rows.size).toBeGreaterThan(10);
    expect([...rows.keys()].sort()).toEqual([...ERROR_CODES].sort());
  });

  it('gives each code the HTTP status the API sends', () => {
    for (const [code, http] of documented()) {
      expect(http.startsWith(String(httpStatusOf(code as (typeof ERROR_CODES)[number]))), code).toBe(true);
    }
  });
});
