// Validates a parsed policy or policy-test file against its schema and words ajv's errors
// for operators, in the same form as config errors (SchemaIssue from
// src/config/schema-issues.ts). That module's checker is bound to CONFIG_SCHEMA and its
// translation is private, so this one covers the keywords the policy schemas use; when
// config exports a schema-generic checker, this file should shrink to a call to it.

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { toPointer } from '../config/config-error.ts';
import type { SchemaIssue } from '../config/schema-issues.ts';

export type SchemaCheck = (data: unknown) => SchemaIssue[];

const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true });
ajv.addKeyword('errorMessage');

/** Compile once (at import of the caller): the schemas are constants. */
export function createSchemaCheck(schema: object): SchemaCheck {
  const validate: ValidateFunction = ajv.compile(schema);
  return (data) => (validate(data) ? [] : withoutRestatements(validate.errors ?? []).map(translate));
}

function withoutRestatements(errors: readonly ErrorObject[]): ErrorObject[] {
  // A oneOf/anyOf that says what it wants speaks for its branches.
  const summarized = errors.filter((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && customMessage(e) !== undefined);
  const kept = errors.filter(
    (e) =>
      // `if` only says "must match then"; the `then` error says what is missing.
      e.keyword !== 'propertyNames' &&
      e.keyword !== 'if' &&
      !summarized.some((s) => s !== e && e.schemaPath.startsWith(s.schemaPath + '/') && e.instancePath.startsWith(s.instancePath)),
  );
  // A value of the wrong type fails the rest of its schema too; the type says it all.
  const wrongType = new Set(kept.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  return kept.filter((e) => e.keyword === 'type' || !wrongType.has(e.instancePath));
}

function translate(e: ErrorObject): SchemaIssue {
  const custom = customMessage(e);
  if (e.propertyName !== undefined) {
    return { path: e.instancePath + toPointer([e.propertyName]), atKey: true, message: `invalid key ${show(e.propertyName)}: ${custom ?? e.message}` };
  }
  if (e.keyword === 'additionalProperties') {
    const key = String(e.params['additionalProperty']);
    const allowed = Object.keys((e.parentSchema?.['properties'] as object | undefined) ?? {});
    return { path: e.instancePath + toPointer([key]), atKey: true, message: `unknown key ${show(key)} (allowed: ${allowed.join(', ')})` };
  }
  if (custom !== undefined) {
    const found = e.keyword === 'pattern' || e.keyword === 'minimum' || e.keyword === 'maximum' ? `, got ${shown(e.data)}` : '';
    return { path: e.instancePath, atKey: e.keyword === 'not', message: custom + found };
  }
  return { path: e.instancePath, atKey: false, message: describe(e) };
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required key ${show(p['missingProperty'])}`;
    case 'type':
      return `expected ${([] as unknown[]).concat(p['type']).join(' or ')}, got ${typeName(e.data)}`;
    case 'enum':
      return `expected one of ${(p['allowedValues'] as unknown[]).map(show).join(', ')}, got ${shown(e.data)}`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `expected a number ${String(p['comparison'])} ${String(p['limit'])}, got ${shown(e.data)}`;
    case 'minLength':
      return 'expected a non-empty string';
    case 'minItems':
      return `expected at least ${String(p['limit'])} item(s), got none`;
    case 'minProperties':
      return 'expected at least one entry, got none';
    case 'not':
      return 'key not allowed here';
    default:
      return `${e.message ?? 'invalid'}, got ${shown(e.data)}`;
  }
}

function customMessage(e: ErrorObject): string | undefined {
  const message = e.parentSchema?.['errorMessage'];
  return typeof message === 'string' ? message : undefined;
}

function shown(data: unknown): string {
  return data !== null && typeof data === 'object' ? typeName(data) : show(data);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '..."' : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
