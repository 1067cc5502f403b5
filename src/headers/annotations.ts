// Finds and validates `x-mcp-header` annotations in a tool's inputSchema (MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters,
// "Validity rules"). If any annotation is invalid the whole tool is invalid; deciding to
// drop the tool and logging the warning is left to the catalog, which owns tool lists.
//
// The walk covers every keyword, not just `properties`, because rule 5 makes an annotation
// found anywhere off a pure `properties` chain (items, oneOf, $defs behind a $ref, …) an
// invalid one, and silently ignoring it would mirror nothing where the server expects a header.
import { type Result, ok, err } from '../protocol/result.ts';
import { isHeaderToken } from './header-value.ts';

export const X_MCP_HEADER = 'x-mcp-header';

/** Property types an annotation may sit on (rule 4; `number` is deliberately absent). */
export type HeaderParamType = 'string' | 'integer' | 'boolean';

export interface HeaderParam {
  /** The annotation value as declared, e.g. `Region` for `Mcp-Param-Region`. */
  readonly name: string;
  /** Property names from the schema root down to the annotated property. */
  readonly path: readonly string[];
  readonly type: HeaderParamType;
}

/** Guards against pathological schemas from upstreams we do not control. */
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_SCHEMA_NODES = 10_000;

const ALLOWED_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'boolean']);

// Keywords whose value is a map from names to subschemas. Their keys are not keywords, so a
// property or definition literally named "x-mcp-header" is not an annotation.
const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set([
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);

// Keywords whose value is instance data or plain strings, never a schema; an object inside
// `default` or `enum` that happens to have an "x-mcp-header" key annotates nothing.
const DATA_KEYWORDS: ReadonlySet<string> = new Set([
  'const',
  'enum',
  'default',
  'examples',
  'required',
  'dependentRequired',
  'type',
  '$vocabulary',
]);

interface Walk {
  found: { param: HeaderParam; pointer: string }[];
  problems: string[];
  nodes: number;
  aborted?: string;
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function child(pointer: string, token: string | number): string {
  return `${pointer}/${escapePointerToken(String(token))}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Resolves a `type` keyword to one allowed primitive, or explains why it cannot. */
function resolveType(schemaType: unknown): Result<HeaderParamType, string> {
  if (schemaType === undefined) return err('has no "type" (must be string, integer or boolean)');
  // A nullable primitive (["string","null"]) is accepted: the spec does not cover type
  // arrays, and MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters suggests allowing exactly one non-null allowed type.
  const listed = Array.isArray(schemaType) ? schemaType : [schemaType];
  const nonNull = [...new Set(listed.filter((t) => t !== 'null'))];
  const only = nonNull[0];
  if (nonNull.length === 1 && typeof only === 'string' && ALLOWED_TYPES.has(only)) {
    return ok(only as HeaderParamType);
  }
  return err(`has type ${JSON.stringify(schemaType)} (must be string, integer or boolean)`);
}

function checkAnnotation(walk: Walk, schema: Record<string, unknown>, pointer: string, path: readonly string[] | null): void {
  const value = schema[X_MCP_HEADER];
  const at = pointer === '' ? '/' : pointer;
  if (typeof value !== 'string') {
    walk.problems.push(`x-mcp-header at ${at} must be a string, got ${JSON.stringify(value) ?? typeof value}`);
    return;
  }
  const label = `x-mcp-header ${JSON.stringify(value)} at ${at}`;
  if (value === '') {
    walk.problems.push(`${label} is empty`);
    return;
  }
  if (!isHeaderToken(value)) {
    walk.problems.push(`${label} is not an RFC 9110 token`);
    return;
  }
  if (path === null) {
    walk.problems.push(`${label} is not reachable through properties alone`);
    return;
  }
  if (path.length === 0) {
    walk.problems.push(`${label} annotates the schema root, not a property`);
    return;
  }
  const type = resolveType(schema['type']);
  if (!type.ok) {
    walk.problems.push(`${label} ${type.error}`);
    return;
  }
  walk.found.push({ param: { name: value, path, type: type.value }, pointer: at });
}

/** Visits a value where a schema is expected. `path` is null once off a `properties` chain. */
function walkSchema(walk: Walk, node: unknown, pointer: string, path: readonly string[] | null, depth: number): void {
  if (walk.aborted !== undefined) return;
  if (Array.isArray(node)) {
    // Tuple `items` (draft-07), or a malformed keyword: every element is a candidate schema.
    visitCount(walk, pointer, depth);
    node.forEach((element, i) => walkSchema(walk, element, child(pointer, i), null, depth + 1));
    return;
  }
  if (!isObject(node)) return;
  visitCount(walk, pointer, depth);
  if (walk.aborted !== undefined) return;

  for (const [key, value] of Object.entries(node)) {
    const at = child(pointer, key);
    if (key === X_MCP_HEADER) {
      checkAnnotation(walk, node, pointer, path);
    } else if (key === 'properties' && isObject(value)) {
      visitCount(walk, at, depth + 1);
      for (const [prop, sub] of Object.entries(value)) {
        walkSchema(walk, sub, child(at, prop), path === null ? null : [...path, prop], depth + 2);
      }
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      visitCount(walk, at, depth + 1);
      for (const [name, sub] of Object.entries(value)) {
        walkSchema(walk, sub, child(at, name), null, depth + 2);
      }
    } else if (!DATA_KEYWORDS.has(key)) {
      // Every other keyword (items, prefixItems, allOf/anyOf/oneOf/not, if/then/else,
      // additionalProperties, contains, unknown extensions, …) is walked as a schema off
      // the `properties` chain.
      walkSchema(walk, value, at, null, depth + 1);
    }
    if (walk.aborted !== undefined) return;
  }
}

function visitCount(walk: Walk, pointer: string, depth: number): void {
  walk.nodes += 1;
  if (depth > MAX_SCHEMA_DEPTH) {
    walk.aborted = `inputSchema is nested deeper than ${MAX_SCHEMA_DEPTH} levels at ${pointer}`;
  } else if (walk.nodes > MAX_SCHEMA_NODES) {
    walk.aborted = `inputSchema has more than ${MAX_SCHEMA_NODES} nodes`;
  }
}

/**
 * Scans a tool's inputSchema for `x-mcp-header` annotations and checks every validity rule
 * of MCP 2026-07-28, basic/transports/streamable-http#custom-headers-from-tool-parameters. Returns the header parameters sorted by name (case-insensitively, which is
 * a total order because names are unique that way), or every problem found, joined by "; ".
 */
export function scanHeaderAnnotations(inputSchema: unknown): Result<HeaderParam[], string> {
  const walk: Walk = { found: [], problems: [], nodes: 0 };
  walkSchema(walk, inputSchema, '', [], 0);
  if (walk.aborted !== undefined) return err(walk.aborted);

  // Rule 3: unique case-insensitively within the tool; `Method` etc. are fine because the
  // header is always `Mcp-Param-{Name}`.
  const seen = new Map<string, string>();
  for (const { param, pointer } of walk.found) {
    const key = param.name.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      walk.problems.push(`x-mcp-header ${JSON.stringify(param.name)} at ${pointer} duplicates the one at ${first} (names are case-insensitive)`);
    } else {
      seen.set(key, pointer);
    }
  }
  if (walk.problems.length > 0) return err(walk.problems.join('; '));

  const params = walk.found.map((f) => f.param);
  params.sort((a, b) => compareNames(a.name.toLowerCase(), b.name.toLowerCase()));
  return ok(params);
}

// Code-unit order rather than localeCompare, so the order never depends on the host locale.
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
