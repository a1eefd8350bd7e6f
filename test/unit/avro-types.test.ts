import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../../scripts/avro-codegen.js';

describe('generated TypeScript types', () => {
  it('match schemas/*.avsc (run `npm run gen:types` after changing a schema)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const committed = readFileSync(join(root, 'domain', 'avro-types.generated.ts'), 'utf8');
    expect(committed).toBe(generateTypes(join(root, 'schemas')));
  });
});
