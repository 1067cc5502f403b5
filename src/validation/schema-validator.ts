// Validates tool arguments against `inputSchema` and structured results against
// `outputSchema`. Each schema is compiled once and cached on the schema object itself
// (tool definitions are immutable once cached by the catalog), so the hot path never
// compiles. Dialects: 2020-12 by default, draft-07 when `$schema` says so (digest d.2);
// a schema we cannot compile (unknown dialect, unresolvable or network `$ref` — never
// fetched) is reported once and the call is left to the upstream to judge.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonObject, JsonValue } from '../jsonrpc/message.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

export type Validation = { ok: true } | { ok: false; message: string } | { ok: 'unchecked'; reason: string };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const MAX_MESSAGE = 500;

export class SchemaValidator {
  private readonly modern = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  private readonly draft07 = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  private readonly compiled = new WeakMap<object, ValidateFunction | string>();

  constructor() {
    addFormats(this.modern);
    addFormats(this.draft07);
  }

  private compile(schema: JsonObject): ValidateFunction | string {
    const hit = this.compiled.get(schema);
    if (hit !== undefined) return hit;
    let out: ValidateFunction | string;
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : undefined;
    try {
      if (dialect === undefined || DRAFT_2020.test(dialect)) out = this.modern.compile(schema);
      else if (DRAFT_07.test(dialect)) out = this.draft07.compile(schema);
      else out = `unsupported JSON Schema dialect ${dialect}`;
    } catch (e) {
      out = `schema does not compile: ${(e as Error).message}`.slice(0, MAX_MESSAGE);
    }
    this.compiled.set(schema, out);
    return out;
  }

  validate(schema: JsonObject, value: JsonValue | undefined): Validation {
    const fn = this.compile(schema);
    if (typeof fn === 'string') return { ok: 'unchecked', reason: fn };
    if (fn(value ?? {})) return { ok: true };
    const e = fn.errors?.[0];
    const where = e?.instancePath ? e.instancePath : '(root)';
    return { ok: false, message: `${where} ${e?.message ?? 'is invalid'}`.slice(0, MAX_MESSAGE) };
  }
}
