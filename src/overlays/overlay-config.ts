// The `overlays:` key of the gateway config: schema fragment, raw and frozen types, and the
// checks that need only the config itself (two overlays on one tool, two renames to one name,
// an argument both fixed and narrowed). The checks that need the upstream's definition (the
// tool exists, a narrowed schema is a subset, a hidden required argument has a value, a rename
// does not collide with another tool) run when an overlay meets its tool (apply-overlays.ts).
// An overlay is per tool or prompt; `servers[].overlays` reuses this shape per endpoint.
import type { JsonObject, JsonValue } from '../protocol/message.ts';

/** Keywords an overlay may add to (or tighten in) one argument's schema. Each only ever
 * admits fewer values, which is what makes the subset check decidable (narrow-input-schema.ts). */
export const NARROWING_KEYWORDS = ['enum', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems'] as const;
export type NarrowingKeyword = (typeof NARROWING_KEYWORDS)[number];

/** Where an overlay was written: its messages name the file, the line and the JSON pointer. */
export interface OverlaySource {
  file: string;
  /** JSON pointer (RFC 6901) of the overlay in the document, e.g. `/overlays/tools/0`. */
  path: string;
  line?: number;
}

export interface ArgumentOverlay {
  /** Hidden from the client and always sent with this value. */
  fixed?: JsonValue;
  /** Hidden from the client: `fixed`, or `hidden: true` (then not sent; the upstream's default applies). */
  hidden: boolean;
  /** Stays visible; sent with this value when the client leaves the argument out. */
  default?: JsonValue;
  description?: string;
  /** The client must send it, though the upstream does not require it. */
  required: boolean;
  narrow: Readonly<Partial<Record<NarrowingKeyword, JsonValue>>>;
}

interface OverlayBase {
  source: OverlaySource;
  /** Set: `target` is the upstream's own name. Unset: `target` is the exposed (merged) name. */
  upstream: string | undefined;
  target: string;
  /** Hash of the upstream definition the overlay was written against (overlay-hash.ts);
   * unset: not confirmed yet, so the item is held back until `gatehouse overlays confirm`. */
  sha256: string | undefined;
  name: string | undefined;
  title: string | undefined;
  description: string | undefined;
}

export interface ToolOverlay extends OverlayBase {
  kind: 'tools';
  annotations: Readonly<JsonObject> | undefined;
  arguments: Readonly<Record<string, ArgumentOverlay>>;
  /** Appended to every tools/call result as a last text block (README, Virtual servers and overlays). */
  outputNote: string | undefined;
}

export interface PromptOverlay extends OverlayBase {
  kind: 'prompts';
  arguments: Readonly<Record<string, Pick<ArgumentOverlay, 'fixed' | 'hidden' | 'description'>>>;
}

export type Overlay = ToolOverlay | PromptOverlay;

export interface OverlaysConfig {
  tools: readonly ToolOverlay[];
  prompts: readonly PromptOverlay[];
}

export const NO_OVERLAYS: OverlaysConfig = Object.freeze({ tools: Object.freeze([]), prompts: Object.freeze([]) });

interface RawArgument {
  fixed?: JsonValue;
  hidden?: boolean;
  default?: JsonValue;
  description?: string;
  required?: boolean;
  [keyword: string]: JsonValue | undefined;
}

interface RawOverlay {
  tool?: string;
  prompt?: string;
  upstream?: string;
  sha256?: string;
  name?: string;
  title?: string;
  description?: string;
  annotations?: JsonObject;
  arguments?: Record<string, RawArgument>;
  outputNote?: string;
}

export interface RawOverlaysConfig {
  tools?: RawOverlay[];
  prompts?: RawOverlay[];
}

const NAME = { type: 'string', minLength: 1, maxLength: 128 };
const COMMON = {
  upstream: { description: 'The upstream that serves the item; then the item name is its own, unprefixed name.', type: 'string', minLength: 1 },
  sha256: { description: 'SHA-256 (hex) of the upstream definition this overlay was written against; `gatehouse overlays confirm` writes it. A different definition holds the item back (quarantine).', type: 'string', pattern: '^[0-9a-f]{64}$', errorMessage: 'expected 64 lowercase hex characters (run `gatehouse overlays confirm`)' },
  name: {
    ...NAME,
    description: 'The name clients see instead: letters, digits, _, - and . (MCP 2025-11-25, server/tools: tool names).',
    pattern: '^[A-Za-z0-9_.-]+$',
    errorMessage: 'expected 1 to 128 letters, digits, `_`, `-` or `.`',
  },
  title: { description: 'The title clients see instead.', type: 'string' },
  description: { description: 'The description clients see instead.', type: 'string' },
};
const argumentSchema = (forTools: boolean): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    fixed: { description: 'Hidden from the client, always sent with this value.' },
    hidden: { description: 'Hidden from the client and not sent (the upstream default applies). Not for a required argument.', const: true },
    description: { type: 'string', description: 'The argument description clients see instead.' },
    ...(forTools
      ? {
          default: { description: 'Shown as the default; sent when the client leaves the argument out.' },
          required: { description: 'The client must send it.', const: true },
          enum: { type: 'array', minItems: 1, description: 'Only these values (each must be one the upstream accepts).' },
          ...Object.fromEntries(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map((k) => [k, { type: 'number', description: `A tighter ${k}.` }])),
          ...Object.fromEntries(['minLength', 'maxLength', 'minItems', 'maxItems'].map((k) => [k, { type: 'integer', minimum: 0, description: `A tighter ${k}.` }])),
          pattern: { type: 'string', description: 'A pattern the value must match too (the upstream schema must have none).' },
        }
      : {}),
  },
});

export const OVERLAYS_CONFIG_SCHEMA = {
  description: 'Tool and prompt overlays: what clients see and may send instead of the upstream definition (README, Virtual servers and overlays).',
  type: 'object',
  additionalProperties: false,
  properties: {
    tools: {
      description: 'One overlay per tool.',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tool'],
        properties: {
          tool: { ...NAME, description: 'The tool: its exposed name, or with `upstream` its own name.' },
          ...COMMON,
          annotations: {
            type: 'object',
            description: 'Annotation values that replace the upstream ones (MCP 2026-07-28, server/tools: ToolAnnotations).',
            additionalProperties: false,
            properties: Object.fromEntries(
              [['title', 'string'], ['readOnlyHint', 'boolean'], ['destructiveHint', 'boolean'], ['idempotentHint', 'boolean'], ['openWorldHint', 'boolean']].map(([k, t]) => [k, { type: t, description: `The ${k} clients see.` }]),
            ),
          },
          arguments: { type: 'object', description: 'Per argument name.', additionalProperties: argumentSchema(true) },
          outputNote: { type: 'string', minLength: 1, description: 'Appended to every result of the tool as a last text block.' },
        },
      },
    },
    prompts: {
      description: 'One overlay per prompt.',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['prompt'],
        properties: {
          prompt: { ...NAME, description: 'The prompt: its exposed name, or with `upstream` its own name.' },
          ...COMMON,
          arguments: { type: 'object', description: 'Per argument name.', additionalProperties: argumentSchema(false) },
        },
      },
    },
  },
} as const;

export interface OverlayIssue {
  path: string;
  message: string;
}

/** The frozen overlays, and what is wrong in the config itself. */
export function normalizeOverlaysConfig(raw: RawOverlaysConfig | undefined, file: string, at = '/overlays'): { config: OverlaysConfig; issues: OverlayIssue[] } {
  if (raw === undefined) return { config: NO_OVERLAYS, issues: [] };
  const issues: OverlayIssue[] = [];
  const tools = (raw.tools ?? []).map((o, i): ToolOverlay => {
    const path = `${at}/tools/${i}`;
    const args: Record<string, ArgumentOverlay> = {};
    for (const [name, a] of Object.entries(o.arguments ?? {})) args[name] = normalizeArgument(a, `${path}/arguments/${escape(name)}`, issues);
    return { kind: 'tools', ...base(o, o.tool!, file, path), annotations: o.annotations, arguments: args, outputNote: o.outputNote };
  });
  const prompts = (raw.prompts ?? []).map((o, i): PromptOverlay => {
    const path = `${at}/prompts/${i}`;
    const args: PromptOverlay['arguments'] = Object.fromEntries(
      Object.entries(o.arguments ?? {}).map(([name, a]) => [name, { ...(a.fixed !== undefined ? { fixed: a.fixed } : {}), hidden: a.fixed !== undefined || a.hidden === true, ...(a.description !== undefined ? { description: a.description } : {}) }]),
    );
    return { kind: 'prompts', ...base(o, o.prompt!, file, path), arguments: args };
  });
  checkUnique(tools, 'tool', issues);
  checkUnique(prompts, 'prompt', issues);
  return { config: { tools, prompts }, issues };
}

function base(o: RawOverlay, target: string, file: string, path: string): OverlayBase {
  return { source: { file, path }, upstream: o.upstream, target, sha256: o.sha256, name: o.name, title: o.title, description: o.description };
}

function normalizeArgument(a: RawArgument, path: string, issues: OverlayIssue[]): ArgumentOverlay {
  const narrow: Partial<Record<NarrowingKeyword, JsonValue>> = {};
  for (const k of NARROWING_KEYWORDS) if (a[k] !== undefined) narrow[k] = a[k];
  const hidden = a.fixed !== undefined || a.hidden === true;
  const shaping = [...Object.keys(narrow), ...(a.default !== undefined ? ['default'] : []), ...(a.required ? ['required'] : [])];
  if (hidden && shaping.length > 0) issues.push({ path, message: `a ${a.fixed !== undefined ? 'fixed' : 'hidden'} argument is not sent by the client, so ${shaping.map((k) => `\`${k}\``).join(', ')} would never apply` });
  if (a.fixed !== undefined && a.hidden === true) issues.push({ path: `${path}/hidden`, message: '`fixed` already hides the argument; `hidden: true` is for an argument that is not sent at all' });
  return { ...(a.fixed !== undefined ? { fixed: a.fixed } : {}), hidden, ...(a.default !== undefined ? { default: a.default } : {}), ...(a.description !== undefined ? { description: a.description } : {}), required: a.required === true, narrow };
}

/** One overlay per item, and one item per new name: either would make the result depend on order. */
function checkUnique(overlays: readonly Overlay[], word: string, issues: OverlayIssue[]): void {
  const targets = new Map<string, string>();
  const names = new Map<string, string>();
  for (const o of overlays) {
    const key = o.upstream === undefined ? `\u0000${o.target}` : `${o.upstream}\u0000${o.target}`;
    const earlier = targets.get(key);
    if (earlier !== undefined) issues.push({ path: `${o.source.path}/${word}`, message: `a second overlay for ${word} "${o.target}"${o.upstream ? ` of upstream "${o.upstream}"` : ''}: the first is at ${earlier}` });
    else targets.set(key, o.source.path);
    if (o.name === undefined) continue;
    const named = names.get(o.name);
    if (named !== undefined) issues.push({ path: `${o.source.path}/name`, message: `the rename to "${o.name}" collides with the overlay at ${named}, which renames to the same name` });
    else names.set(o.name, o.source.path);
  }
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `file:line /overlays/tools/0`: where an operator finds the overlay. */
export function describeSource(source: OverlaySource): string {
  return `${source.file}${source.line === undefined ? '' : `:${source.line}`} ${source.path}`;
}
