// Validates parsed documents against the gateway's JSON Schemas (the config, its fragments
// checked on their own, policy and policy-test files) and turns ajv's errors into messages an
// operator can act on: what was expected, what was found, at which path. Every error is
// reported (allErrors), minus the ones that only restate another: the rest of a schema whose
// type is wrong, the branch errors behind a oneOf/anyOf that has its own message, and the
// consequences of a failed propertyNames or `if`. Positions in the file are the caller's.

import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { toPointer } from './config-error.ts';

export interface SchemaIssue {
  /** JSON pointer (RFC 6901) relative to the checked value, e.g. `/upstreams/0/url`. */
  path: string;
  /** The issue is about a key (unknown or badly named), so point at the key, not its value. */
  atKey: boolean;
  message: string;
}

export type SchemaCheck = (data: unknown) => SchemaIssue[];

// strictRequired is off because the transport oneOf names keys declared one level up. One
// instance for every schema: none has an $id, so they cannot clash.
const ajv = new Ajv2020({
  allErrors: true,
  verbose: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
});
ajv.addKeyword('errorMessage');

// Keywords that judge the value itself, so the message ends with what was found.
const VALUE_KEYWORDS = new Set([
  'type', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'enum', 'const', 'format',
]);

/** Compiles `schema` now (callers do it once, at import: their schemas are constants). */
export function createSchemaCheck(schema: object): SchemaCheck {
  const validate = ajv.compile(schema);
  return (data) => (validate(data) ? [] : unique(withoutRestatements(validate.errors ?? []).map(translate)));
}

function withoutRestatements(errors: readonly ErrorObject[]): ErrorObject[] {
  // A oneOf/anyOf that says what it wants speaks for its branches, however deep they fail.
  const summarized = errors.filter((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && customMessage(e) !== undefined);
  const kept = errors.filter(
    (e) =>
      // A failed propertyNames is reported through its subschema's error, with the key.
      e.keyword !== 'propertyNames' &&
      // `if` only says "must match then"; the `then` error says what is missing.
      e.keyword !== 'if' &&
      !summarized.some(
        (s) =>
          (s !== e && e.schemaPath.startsWith(s.schemaPath + '/') && within(e.instancePath, s.instancePath)) ||
          // Keys "only for the other transport" mean nothing until the transport is clear.
          (e.instancePath.startsWith(s.instancePath + '/') && e.schemaPath.includes('/dependentSchemas/')),
      ),
  );
  // A value of the wrong type fails the rest of its schema too; the type says it all.
  const wrongType = new Set(kept.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  return kept.filter((e) => e.keyword === 'type' || !wrongType.has(e.instancePath));
}

function within(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(ancestor + '/');
}

// ajv can reach one fault through two schema routes; say it once.
function unique(issues: readonly SchemaIssue[]): SchemaIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function translate(e: ErrorObject): SchemaIssue {
  const custom = customMessage(e);
  if (e.propertyName !== undefined) {
    return {
      path: e.instancePath + toPointer([e.propertyName]),
      atKey: true,
      message: `invalid key ${show(e.propertyName)}: ${custom ?? describe(e)}`,
    };
  }
  if (e.keyword === 'additionalProperties') {
    const key = String(e.params['additionalProperty']);
    const allowed = Object.keys((e.parentSchema?.['properties'] as object | undefined) ?? {});
    return {
      path: e.instancePath + toPointer([key]),
      atKey: true,
      message: `unknown key ${show(key)} (allowed: ${allowed.join(', ')})`,
    };
  }
  if (e.keyword === 'uniqueItems') {
    // Point at the later copy: the earlier one is the one to keep.
    const [first, later] = [e.params['i'], e.params['j']].map(Number).sort((a, b) => a - b);
    const items = e.data as unknown[];
    return {
      path: e.instancePath + toPointer([later ?? 0]),
      atKey: false,
      message: `duplicate item ${show(items[later ?? 0])} (same as item ${first})`,
    };
  }
  if (custom !== undefined) {
    const found = VALUE_KEYWORDS.has(e.keyword) ? `, got ${shownFound(e.data)}` : '';
    return { path: e.instancePath, atKey: e.keyword === 'not', message: custom + found };
  }
  return { path: e.instancePath, atKey: false, message: describe(e) };
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const got = shownFound(e.data);
  switch (e.keyword) {
    case 'required':
      return `missing required key ${show(p['missingProperty'])}`;
    case 'type': {
      const expected = ([] as unknown[]).concat(p['type']).join(' or ');
      // A fraction where an integer belongs is clearer shown than named ("number").
      const fraction = typeof e.data === 'number' && !Number.isInteger(e.data);
      return `expected ${expected}, got ${fraction ? got : typeName(e.data)}`;
    }
    case 'enum':
      return `expected one of ${(p['allowedValues'] as unknown[]).map(show).join(', ')}, got ${got}`;
    case 'const':
      return `expected ${show(p['allowedValue'])}, got ${got}`;
    case 'pattern':
      return `expected a string matching /${String(p['pattern'])}/, got ${got}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `expected a number ${String(p['comparison'])} ${String(p['limit'])}, got ${got}`;
    case 'minLength':
      return p['limit'] === 1
        ? 'expected a non-empty string'
        : `expected at least ${String(p['limit'])} characters, got ${got}`;
    case 'maxLength':
      return `expected at most ${String(p['limit'])} characters, got ${got}`;
    case 'minItems':
      return p['limit'] === 1
        ? 'expected at least one item, got none'
        : `expected at least ${String(p['limit'])} items, got ${(e.data as unknown[]).length}`;
    case 'minProperties':
      return p['limit'] === 1 ? 'expected at least one entry, got none' : `expected at least ${String(p['limit'])} entries`;
    case 'maxItems':
      return `expected at most ${String(p['limit'])} items, got ${(e.data as unknown[]).length}`;
    case 'false schema':
    case 'not':
      return 'key not allowed here';
    default:
      return `${e.message ?? 'invalid'}, got ${got}`;
  }
}

function customMessage(e: ErrorObject): string | undefined {
  const message = e.parentSchema?.['errorMessage'];
  return typeof message === 'string' ? message : undefined;
}

// Strings and numbers are shown as written; containers only by type, to keep one line.
function shownFound(data: unknown): string {
  return data !== null && typeof data === 'object' ? typeName(data) : show(data);
}

function show(value: unknown): string {
  const text = JSON.stringify(typeof value === 'string' ? withoutUrlSecrets(value) : value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '..."' : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

// A URL's userinfo, query and fragment can carry credentials (`https://user:pw@host`,
// `?api_key=...`); a rejected URL is shown with them masked, the rest as written.
const URL_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(?:[^/?#@]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/s;

function withoutUrlSecrets(text: string): string {
  const m = URL_PARTS.exec(text);
  if (m === null) return text;
  const [, scheme, rest, query, fragment] = m;
  const hadUserinfo = text.length > (scheme?.length ?? 0) + (rest?.length ?? 0) + (query?.length ?? 0) + (fragment?.length ?? 0);
  return `${scheme}${hadUserinfo ? '***@' : ''}${rest}${query ? '?***' : ''}${fragment ? '#***' : ''}`;
}
