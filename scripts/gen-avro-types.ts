import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTypes } from './avro-codegen.js';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'domain', 'avro-types.generated.ts'), generateTypes(join(root, 'schemas')));
console.log('wrote domain/avro-types.generated.ts');
