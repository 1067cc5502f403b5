// Regenerates the editor-facing copies of the policy schemas:
//   npx tsx src/policy/write-policy-schemas.ts
// test/policy/policy-schema.test.ts fails when a file and its const drift apart.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { POLICY_SCHEMA } from './policy-schema.ts';
import { POLICY_TEST_SCHEMA } from './policy-test-schema.ts';

export const POLICY_SCHEMA_FILE = fileURLToPath(new URL('../../schema/policy.schema.json', import.meta.url));
export const POLICY_TEST_SCHEMA_FILE = fileURLToPath(new URL('../../schema/policy-test.schema.json', import.meta.url));

export function writePolicySchemas(): void {
  writeFileSync(POLICY_SCHEMA_FILE, JSON.stringify(POLICY_SCHEMA, null, 2) + '\n');
  writeFileSync(POLICY_TEST_SCHEMA_FILE, JSON.stringify(POLICY_TEST_SCHEMA, null, 2) + '\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writePolicySchemas();
  process.stderr.write(`wrote ${POLICY_SCHEMA_FILE}\nwrote ${POLICY_TEST_SCHEMA_FILE}\n`);
}
