import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POLICY_SCHEMA } from '../../src/policy/policy-schema.ts';
import { POLICY_TEST_SCHEMA } from '../../src/policy/policy-test-schema.ts';
import { POLICY_SCHEMA_FILE, POLICY_TEST_SCHEMA_FILE } from '../../src/policy/write-policy-schemas.ts';

describe('published policy schemas', () => {
  it('schema/policy.schema.json equals POLICY_SCHEMA (regenerate: npx tsx src/policy/write-policy-schemas.ts)', () => {
    expect(JSON.parse(readFileSync(POLICY_SCHEMA_FILE, 'utf8'))).toEqual(POLICY_SCHEMA);
  });

  it('schema/policy-test.schema.json equals POLICY_TEST_SCHEMA (regenerate: npx tsx src/policy/write-policy-schemas.ts)', () => {
    expect(JSON.parse(readFileSync(POLICY_TEST_SCHEMA_FILE, 'utf8'))).toEqual(POLICY_TEST_SCHEMA);
  });
});
