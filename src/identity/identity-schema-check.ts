// Validates an `identity:` value, or the list in an `apiKeysFile`, against its schema, so the
// normalizer is total over any input: the keys file is not part of the gateway document, and
// a standalone caller (a test, a CLI) gets the same messages. Inside the
// gateway's loader the fragment has already passed, so this only repeats a cheap check.
// Messages follow config/schema-issues.ts: what was expected, what was found, at which path.

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { toPointer } from '../config/config-error.ts';
import { API_KEY_SCHEMA, IDENTITY_CONFIG_SCHEMA } from './identity-config-schema.ts';

export interface IdentityIssue {
  /** JSON pointer (RFC 6901) relative to the `identity` value, e.g. `/jwt/algorithms/0`. */
  path: string;
  message: string;
}

// The same options as the gateway's validator, so the fragment passes its strict mode too.
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
ajv.addKeyword('errorMessage');
const validateIdentity = ajv.compile(IDENTITY_CONFIG_SCHEMA);
const validateKeyList = ajv.compile({
  description: 'A list of API keys.',
  type: 'array',
  items: API_KEY_SCHEMA,
});

export function checkIdentitySchema(data: unknown): IdentityIssue[] {
  return validateIdentity(data) ? [] : translateAll(validateIdentity.errors ?? []);
}

export function checkKeyListSchema(data: unknown): IdentityIssue[] {
  return validateKeyList(data) ? [] : translateAll(validateKeyList.errors ?? []);
}

// Keywords that judge the value itself, so the message may end with what was found.
const VALUE_KEYWORDS = new Set(['type', 'pattern', 'minimum', 'maximum', 'minLength', 'enum', 'const']);

function translateAll(errors: readonly ErrorObject[]): IdentityIssue[] {
  // A value of the wrong type fails the rest of its schema too; the type error says it all.
  const wrongType = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  // A oneOf with its own message speaks for its branches (and never echoes the value).
  const summaries = errors.filter((e) => e.keyword === 'oneOf').map((e) => e.schemaPath + '/');
  const seen = new Set<string>();
  const issues: IdentityIssue[] = [];
  for (const e of errors) {
    if (e.keyword !== 'type' && wrongType.has(e.instancePath)) continue;
    if (summaries.some((s) => e.schemaPath.startsWith(s))) continue;
    const issue = translate(e);
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) issues.push(issue);
    seen.add(key);
  }
  return issues;
}

function translate(e: ErrorObject): IdentityIssue {
  const p = e.params as Record<string, unknown>;
  const custom = e.parentSchema?.['errorMessage'];
  if (e.keyword === 'additionalProperties') {
    const key = String(p['additionalProperty']);
    const allowed = Object.keys((e.parentSchema?.['properties'] as object | undefined) ?? {});
    return { path: e.instancePath + toPointer([key]), message: `unknown key ${show(key)} (allowed: ${allowed.join(', ')})` };
  }
  if (typeof custom === 'string') {
    const got = VALUE_KEYWORDS.has(e.keyword) ? `, got ${found(e.data)}` : '';
    return { path: e.instancePath, message: custom + got };
  }
  switch (e.keyword) {
    case 'required':
      return { path: e.instancePath, message: `missing required key ${show(p['missingProperty'])}` };
    case 'type':
      return { path: e.instancePath, message: `expected ${([] as unknown[]).concat(p['type']).join(' or ')}, got ${typeName(e.data)}` };
    case 'minLength':
      return { path: e.instancePath, message: 'expected a non-empty string' };
    case 'minItems':
      return { path: e.instancePath, message: `expected at least ${String(p['limit'])} item(s), got none` };
    case 'uniqueItems':
      return { path: e.instancePath + toPointer([Number(p['i'])]), message: `duplicate item ${found((e.data as unknown[])[Number(p['i'])])}` };
    default:
      return { path: e.instancePath, message: `${e.message ?? 'invalid'}, got ${found(e.data)}` };
  }
}

// Strings and numbers as written; containers by type only, so a message stays one line.
function found(data: unknown): string {
  return data !== null && typeof data === 'object' ? typeName(data) : show(data);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '..."' : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
