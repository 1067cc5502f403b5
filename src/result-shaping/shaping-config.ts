// The `resultShaping:` key of the gateway config: schema fragment, raw type, the frozen
// settings and their defaults. Absent: results pass untouched. Present: every tools/call
// result is held to a budget, gateway-wide, with rules per upstream and per tool
// (shaping-limits.ts says which applies). Sizes use the audit section's notation ("64KiB").
import { BYTE_SIZE_PATTERN } from '../audit/audit-config-schema.ts';
import { byteSize } from '../audit/audit-config.ts';
import { durationMs, durationTooLong, defaultedDurationSchema, type RawDuration } from '../config/duration.ts';

export const CUT_STRATEGIES = ['head', 'head+tail', 'refuse'] as const;
export type CutStrategy = (typeof CUT_STRATEGIES)[number];
export const STRUCTURED_MODES = ['keep', 'refuse'] as const;
/** What happens to structuredContent that has an outputSchema and is over the budget: it
 * cannot be cut and still validate, so it is kept whole or the result is refused. */
export type StructuredMode = (typeof STRUCTURED_MODES)[number];

/** Rough bytes per token for the token budget (English text and JSON average about 4). */
export const BYTES_PER_TOKEN = 4;

export interface ShapingLimits {
  /** Budget for text and structured content in bytes (UTF-8); 0: none. */
  maxBytes: number;
  strategy: CutStrategy;
  structured: StructuredMode;
  /** Images, audio and embedded resources above this many bytes become resource links; 0: never. */
  maxMediaBytes: number;
}

export interface ShapingRule {
  /** Exactly one of the two is set: a glob over the exposed tool name, or an upstream name. */
  tool?: string;
  upstream?: string;
  /** Set when the rule names maxResultBytes or maxResultTokens (the smaller wins). */
  maxBytes?: number;
  strategy?: CutStrategy;
  structured?: StructuredMode;
  maxMediaBytes?: number;
}

export interface ResultShapingConfig {
  enabled: boolean;
  defaults: ShapingLimits;
  rules: readonly ShapingRule[];
  /** Apply the audit trail's redaction patterns (audit.redact) to results. */
  redact: boolean;
  keep: {
    ttlMs: number;
    /** All kept results together, per gateway process (LRU by bytes). */
    maxBytes: number;
    /** A larger result is cut but not kept. */
    maxEntryBytes: number;
    /** Default length of one page read from a kept text result. */
    pageBytes: number;
  };
}

interface RawLimits {
  maxResultBytes?: string | number;
  maxResultTokens?: number;
  strategy?: CutStrategy;
  structured?: StructuredMode;
  maxMediaBytes?: string | number;
}

export interface RawResultShapingConfig extends RawLimits {
  redact?: boolean;
  keep?: { ttl?: RawDuration; maxBytes?: string | number; maxEntryBytes?: string | number; pageBytes?: string | number };
  rules?: (RawLimits & { tool?: string; upstream?: string })[];
}

export const SHAPING_DEFAULTS = {
  maxResultTokens: 25_000,
  strategy: 'head',
  structured: 'keep',
  maxMediaBytes: '1MiB',
  ttl: '10m',
  keepBytes: '64MiB',
  maxEntryBytes: '8MiB',
  pageBytes: '64KiB',
} as const;

const size = (description: string, fallback?: string): Record<string, unknown> => ({
  description: `${description}${fallback ? ` Default "${fallback}".` : ''}`,
  type: ['integer', 'string'],
  minimum: 0,
  pattern: BYTE_SIZE_PATTERN,
  errorMessage: 'expected a size like "64KiB" or a number of bytes',
  ...(fallback ? { default: fallback } : {}),
});

const LIMIT_PROPERTIES = {
  maxResultBytes: size('Budget for the text and structured content of one tools/call result, in bytes; 0 for none.'),
  maxResultTokens: {
    description: `Budget in approximate tokens (${BYTES_PER_TOKEN} bytes each); where both are set the smaller wins. Default ${SHAPING_DEFAULTS.maxResultTokens} when neither is set.`,
    type: 'integer',
    minimum: 0,
  },
  strategy: {
    description: 'Over the budget: keep the `head`, the `head+tail` (the middle is cut), or `refuse` the result. Default head.',
    enum: [...CUT_STRATEGIES],
  },
  structured: {
    description: 'structuredContent with an outputSchema over the budget is never cut: `keep` it whole, or `refuse` the result. Default keep.',
    enum: [...STRUCTURED_MODES],
  },
  maxMediaBytes: size('Images, audio and embedded resources above this size become resource links to the kept copy; 0 for never.'),
} as const;

export const RESULT_SHAPING_CONFIG_SCHEMA = {
  description:
    'Result shaping: tools/call results held to a byte (or token) budget, large media replaced by links, the full result kept for a while as gatehouse://results/<id>. Absent: results pass untouched. See README, Context budget.',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...LIMIT_PROPERTIES,
    redact: { description: "Replace secrets in results using the audit section's redaction keys and patterns (audit.redact). Default false.", type: 'boolean', default: false },
    keep: {
      description: 'The full copies of shaped results, readable by the same principal through resources/read.',
      type: 'object',
      additionalProperties: false,
      properties: {
        ttl: defaultedDurationSchema('How long a full result stays readable.', SHAPING_DEFAULTS.ttl, '10m'),
        maxBytes: size('Memory for all kept results together; the least recently used go first.', SHAPING_DEFAULTS.keepBytes),
        maxEntryBytes: size('A result larger than this is cut but not kept.', SHAPING_DEFAULTS.maxEntryBytes),
        pageBytes: size('Length of a page read without `length`.', SHAPING_DEFAULTS.pageBytes),
      },
    },
    rules: {
      description: 'Budgets per upstream or per tool. A tool rule beats an upstream rule, which beats the settings above; among rules of one kind the first that sets a field wins.',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          tool: { description: 'Glob over the exposed tool name (`*`, `?`).', type: 'string', minLength: 1 },
          upstream: { description: 'An upstream name.', type: 'string', minLength: 1 },
          ...LIMIT_PROPERTIES,
        },
        allOf: [
          {
            description: 'Exactly one matcher.',
            oneOf: [{ required: ['tool'] }, { required: ['upstream'] }],
            errorMessage: 'a rule names exactly one of `tool` or `upstream`',
          },
        ],
      },
    },
  },
} as const;

export interface ShapingIssue {
  /** JSON pointer relative to `resultShaping`. */
  path: string;
  message: string;
}

/** The budget a block of limits names, or undefined when it names neither key. */
function budget(raw: RawLimits, at: string, issues: ShapingIssue[]): number | undefined {
  const bytes = raw.maxResultBytes === undefined ? undefined : bytesOf(raw.maxResultBytes, `${at}/maxResultBytes`, issues);
  const tokens = raw.maxResultTokens === undefined ? undefined : raw.maxResultTokens * BYTES_PER_TOKEN;
  const set = [bytes, tokens].filter((b): b is number => b !== undefined);
  if (set.length === 0) return undefined;
  const limited = set.filter((b) => b > 0);
  return limited.length === 0 ? 0 : Math.min(...limited);
}

function bytesOf(value: string | number, at: string, issues: ShapingIssue[]): number {
  const b = byteSize(value);
  if (b !== undefined) return b;
  issues.push({ path: at, message: 'size too large' });
  return 0;
}

export function normalizeShapingConfig(raw: RawResultShapingConfig | undefined): { config: ResultShapingConfig; issues: ShapingIssue[] } {
  const issues: ShapingIssue[] = [];
  const r = raw ?? {};
  const ttlMs = durationMs(r.keep?.ttl ?? SHAPING_DEFAULTS.ttl);
  if (ttlMs === undefined) issues.push({ path: '/keep/ttl', message: durationTooLong(r.keep?.ttl ?? SHAPING_DEFAULTS.ttl) });
  const config: ResultShapingConfig = {
    enabled: raw !== undefined,
    defaults: {
      maxBytes: budget(r, '', issues) ?? SHAPING_DEFAULTS.maxResultTokens * BYTES_PER_TOKEN,
      strategy: r.strategy ?? SHAPING_DEFAULTS.strategy,
      structured: r.structured ?? SHAPING_DEFAULTS.structured,
      maxMediaBytes: bytesOf(r.maxMediaBytes ?? SHAPING_DEFAULTS.maxMediaBytes, '/maxMediaBytes', issues),
    },
    rules: (r.rules ?? []).map((rule, i) => {
      const maxBytes = budget(rule, `/rules/${i}`, issues);
      return {
        ...(rule.tool !== undefined ? { tool: rule.tool } : {}),
        ...(rule.upstream !== undefined ? { upstream: rule.upstream } : {}),
        ...(maxBytes !== undefined ? { maxBytes } : {}),
        ...(rule.strategy !== undefined ? { strategy: rule.strategy } : {}),
        ...(rule.structured !== undefined ? { structured: rule.structured } : {}),
        ...(rule.maxMediaBytes !== undefined ? { maxMediaBytes: bytesOf(rule.maxMediaBytes, `/rules/${i}/maxMediaBytes`, issues) } : {}),
      };
    }),
    redact: r.redact ?? false,
    keep: {
      ttlMs: ttlMs ?? 0,
      maxBytes: bytesOf(r.keep?.maxBytes ?? SHAPING_DEFAULTS.keepBytes, '/keep/maxBytes', issues),
      maxEntryBytes: bytesOf(r.keep?.maxEntryBytes ?? SHAPING_DEFAULTS.maxEntryBytes, '/keep/maxEntryBytes', issues),
      pageBytes: bytesOf(r.keep?.pageBytes ?? SHAPING_DEFAULTS.pageBytes, '/keep/pageBytes', issues),
    },
  };
  if (config.keep.pageBytes === 0) issues.push({ path: '/keep/pageBytes', message: 'expected a page size above 0' });
  if (config.keep.maxEntryBytes > config.keep.maxBytes) issues.push({ path: '/keep/maxEntryBytes', message: 'expected at most keep.maxBytes' });
  return { config, issues };
}
