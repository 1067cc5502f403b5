// Validates tool arguments against `inputSchema` and structured results against
// `outputSchema`. Each schema is compiled once and cached on the schema object itself
// (tool definitions are immutable once cached by the catalog), so the hot path never
// compiles. Dialects: 2020-12 by default, draft-07 when `$schema` says so (MCP 2026-07-28, server/tools (tools/list));
// a schema we cannot compile (unknown dialect, unresolvable or network `$ref` — never
// fetched) is reported once and the call is left to the upstream to judge.
//
// Every schema gets an Ajv of its own (~0.2 ms, a few KB). One shared Ajv registers each
// schema's `$id`s and keeps every schema it compiled: the next copy of a schema with an
// `$id` (a refreshed tool list, another principal's view) then failed to compile as a
// duplicate and its calls went unchecked, one upstream's `$id` could answer another's
// `$ref`, and the registry grew with every list refresh. Now a compiled schema shares
// nothing and is freed with the schema object.
//
// `pattern` runs on RE2 (re2js: linear time in the input), not on the JavaScript engine's
// backtracking RegExp: a schema comes from an upstream and the string from any client, so a
// pattern like `^(a+)+$` must not let one request hold the event loop for minutes. The few
// patterns RE2 cannot express (lookaround, backreferences) run on RegExp as before.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { linearRegExp } from './linear-regexp.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

/** `valid`; `invalid` with what is wrong; `unchecked` when the schema cannot be used (the value
 * goes to the upstream to judge). */
const VALID: Validation = Object.freeze({ kind: 'valid' });

export type Validation = { kind: 'valid' } | { kind: 'invalid'; message: string } | { kind: 'unchecked'; reason: string };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const MAX_MESSAGE = 500;

export class SchemaValidator {
  private readonly compiled = new WeakMap<object, ValidateFunction | string>();

  private compile(schema: JsonObject): ValidateFunction | string {
    const hit = this.compiled.get(schema);
    if (hit !== undefined) return hit;
    let out: ValidateFunction | string;
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : undefined;
    try {
      if (dialect === undefined || DRAFT_2020.test(dialect)) out = isolatedAjv(Ajv2020).compile(schema);
      else if (DRAFT_07.test(dialect)) out = isolatedAjv(Ajv).compile(schema);
      else out = `unsupported JSON Schema dialect ${dialect}`;
    } catch (e) {
      out = `schema does not compile: ${(e as Error).message}`.slice(0, MAX_MESSAGE);
    }
    this.compiled.set(schema, out);
    return out;
  }

  validate(schema: JsonObject, value: JsonValue | undefined): Validation {
    const fn = this.compile(schema);
    if (typeof fn === 'string') return { kind: 'unchecked', reason: fn };
    if (fn(value ?? {})) return VALID;
    const e = fn.errors?.[0];
    const where = e?.instancePath ? e.instancePath : '(root)';
    return { kind: 'invalid', message: `${where} ${e?.message ?? 'is invalid'}`.slice(0, MAX_MESSAGE) };
  }
}

function isolatedAjv<A extends Ajv | Ajv2020>(Kind: new (opts: object) => A): A {
  // addUsedSchema false: the schema's own `$id` is not registered, so nothing outlives it.
  const ajv = new Kind({ strict: false, allErrors: false, validateSchema: false, addUsedSchema: false, code: { regExp: linearRegExp } });
  addFormats(ajv);
  return ajv;
}
