// The inputSchema a client sees for an overlaid tool, and the proof that it asks no more of
// the upstream than the upstream's own: every value the narrowed schema admits, with the
// hidden arguments filled in, is one the upstream schema admits (MCP 2026-07-28, server/tools:
// inputSchema is a JSON Schema; clients and the gateway check arguments against it).
//
// Why the subset check is exact for what overlays may say: a narrowing keyword is added to the
// argument's own schema, beside the upstream's keywords, so where the upstream has no such
// keyword the result is the intersection. Only where an overlay replaces the upstream's own
// keyword must it be tighter: a larger minimum, a smaller maximum, enum values the upstream
// schema accepts; a second `pattern` cannot be intersected under one keyword and is refused.
// Fixed values and defaults are checked against the upstream schema the same way. Pure; the
// value checks are the caller's validator.
import type { JsonObject, JsonValue } from '../protocol/message.ts';
import { isJsonObject } from '../protocol/message.ts';
import type { ArgumentOverlay, NarrowingKeyword } from './overlay-config.ts';

/** A value's problem against a schema, or undefined when it is accepted (or cannot be judged). */
export type CheckValue = (schema: JsonObject, value: JsonValue) => string | undefined;

export interface NarrowingProblem {
  /** Under the overlay, e.g. `/arguments/limit/maximum`. */
  path: string;
  message: string;
}

export interface NarrowedSchema {
  schema: JsonObject;
  /** Something beyond hiding: the gateway must check every call's arguments against `schema`. */
  enforced: boolean;
}

const LOWER: ReadonlySet<NarrowingKeyword> = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems']);
const UPPER: ReadonlySet<NarrowingKeyword> = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems']);

export function narrowInputSchema(input: JsonObject, overlays: Readonly<Record<string, ArgumentOverlay>>, check: CheckValue): { ok: true; value: NarrowedSchema } | { ok: false; problems: NarrowingProblem[] } {
  const props: Record<string, JsonValue> = isJsonObject(input.properties) ? { ...input.properties } : {};
  const required = new Set(Array.isArray(input.required) ? input.required.filter((r): r is string => typeof r === 'string') : []);
  const problems: NarrowingProblem[] = [];
  let enforced = false;
  for (const [name, a] of Object.entries(overlays)) {
    const at = `/arguments/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!(name in props)) {
      problems.push({ path: at, message: `the upstream tool has no argument "${name}"` });
      continue;
    }
    const original: JsonObject = isJsonObject(props[name]) ? (props[name] as JsonObject) : {};
    if (a.hidden) {
      if (a.fixed !== undefined) {
        const bad = check(original, a.fixed);
        if (bad) problems.push({ path: `${at}/fixed`, message: `the upstream does not accept this value for "${name}": ${bad}` });
      } else if (required.has(name)) {
        problems.push({ path: `${at}/hidden`, message: `the upstream requires "${name}": a hidden required argument needs a \`fixed\` value` });
      }
      delete props[name];
      required.delete(name);
      continue;
    }
    const narrowed: JsonObject = { ...original };
    for (const [k, v] of Object.entries(a.narrow) as [NarrowingKeyword, JsonValue][]) {
      const wider = widerThan(k, v, original, check);
      if (wider) problems.push({ path: `${at}/${k}`, message: `not a subset of the upstream schema: ${wider}` });
      narrowed[k] = v;
      enforced = true;
    }
    if (a.description !== undefined) narrowed.description = a.description;
    if (a.required && !required.has(name)) {
      required.add(name);
      enforced = true;
    }
    if (a.default !== undefined) {
      const bad = check(narrowed, a.default);
      if (bad) problems.push({ path: `${at}/default`, message: `the default is not a value the argument accepts: ${bad}` });
      narrowed.default = a.default;
    }
    props[name] = narrowed;
  }
  if (problems.length > 0) return { ok: false, problems };
  const { required: _r, ...rest } = input;
  const schema: JsonObject = { ...rest, type: input.type ?? 'object', properties: props, ...(required.size > 0 ? { required: [...required] } : {}) };
  return { ok: true, value: { schema, enforced } };
}

/** Why `value` for keyword `k` admits something the upstream's own schema does not, if it does. */
function widerThan(k: NarrowingKeyword, value: JsonValue, original: JsonObject, check: CheckValue): string | undefined {
  if (k === 'enum') {
    const values = value as JsonValue[];
    for (const v of values) {
      const bad = check(original, v);
      if (bad) return `the upstream does not accept ${JSON.stringify(v)}: ${bad}`;
    }
    return undefined;
  }
  if (k === 'pattern') return original.pattern !== undefined && original.pattern !== value ? 'the upstream schema has a pattern of its own, and one argument can hold only one' : undefined;
  const mine = original[k];
  if (typeof mine !== 'number' || typeof value !== 'number') return undefined;
  if (LOWER.has(k) && value < mine) return `${k} ${value} is below the upstream's ${k} ${mine}`;
  if (UPPER.has(k) && value > mine) return `${k} ${value} is above the upstream's ${k} ${mine}`;
  return undefined;
}
