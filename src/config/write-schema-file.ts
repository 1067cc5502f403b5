// Regenerates schema/gatehouse.schema.json, the editor-facing copy of CONFIG_SCHEMA:
//   npx tsx src/config/write-schema-file.ts
// test/config/load-config.test.ts fails when the two drift apart.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA } from './config-schema.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema/gatehouse.schema.json', import.meta.url));

export function writeSchemaFile(target: string = SCHEMA_FILE): void {
  writeFileSync(target, JSON.stringify(CONFIG_SCHEMA, null, 2) + '\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeSchemaFile();
  process.stderr.write(`wrote ${SCHEMA_FILE}\n`);
}
