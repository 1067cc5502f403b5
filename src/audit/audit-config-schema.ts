// JSON Schema (2020-12) fragment of the gateway config's `audit:` key. Self-contained (no
// `$ref`, no `$schema`) so config/ can mount it under any property. Shape only: regexes and
// JSON paths are compiled, and sizes and durations converted, in audit-config.ts.
// `errorMessage` is the non-standard annotation the gateway schema uses (config-schema.ts).
import { defaultedDurationSchema, type RawDuration } from '../config/duration.ts';
import { BUILTIN_PATTERN_NAMES } from './redact-patterns.ts';

export const BODY_MODES = ['digest', 'redacted', 'full', 'none'] as const;
export type BodyMode = (typeof BODY_MODES)[number];
export const DURABILITY_MODES = ['sync', 'batch'] as const;
export type Durability = (typeof DURABILITY_MODES)[number];
export const FAILURE_MODES = ['closed', 'open'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

/** `64MiB`, `500KB`, `1GB`, `4096B` or an integer of bytes. */
export const BYTE_SIZE_PATTERN = '^[0-9]+(B|KB|MB|GB|KiB|MiB|GiB)?$';

export const DEFAULT_REDACT_KEYS = [
  'password', 'passwd', 'token', 'secret', 'authorization', 'cookie', 'credential', 'api[_-]?key', 'private[_-]?key',
] as const;

function bodyMode(what: string): Record<string, unknown> {
  return {
    description: `How ${what} are recorded: \`digest\` (sha256 of their canonical JSON), \`redacted\` (a copy with secrets replaced by "[REDACTED]"), \`full\` (as sent: secrets included), or \`none\`.`,
    enum: [...BODY_MODES],
  };
}

const REGEX = { type: 'string', minLength: 1, description: 'A JavaScript regular expression (no slashes).' };

export const AUDIT_CONFIG_SCHEMA = {
  description:
    'The audit trail: one hash-chained JSON Lines record per request and per notable event, in files that rotate. On by default. See docs/audit.md.',
  type: 'object',
  additionalProperties: false,
  properties: {
    enabled: { description: 'Write audit records. Default true.', type: 'boolean', default: true },
    dir: {
      description: 'Directory of the audit files, relative to the config file. One gateway per directory. Default "audit".',
      type: 'string',
      minLength: 1,
      default: 'audit',
    },
    file: {
      description: 'Name of the file being written; rotated files are named `<stem>.<first seq>.<ext>` beside it. Default "gatehouse-audit.jsonl".',
      type: 'string',
      pattern: '^(?!\\.\\.?$)[^/\\\\]+$',
      errorMessage: 'expected a file name without "/" or "\\"',
      default: 'gatehouse-audit.jsonl',
    },
    rotate: {
      description: 'When the file is rotated, and how many rotated files are kept.',
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBytes: {
          description: 'Rotate before a write would take the file over this size: bytes, or "64MiB", "500KB", ... Default "64MiB".',
          type: ['integer', 'string'],
          minimum: 1,
          pattern: BYTE_SIZE_PATTERN,
          errorMessage: 'expected a size like "64MiB" or a number of bytes',
          default: '64MiB',
        },
        maxFiles: {
          description: 'Rotated files kept; older ones are deleted. 0 keeps every file (ship and delete them yourself). Default 20.',
          type: 'integer',
          minimum: 0,
          default: 20,
        },
      },
    },
    durability: {
      description:
        '`sync`: a record is written and fsynced as soon as it arrives; records arriving during an fsync share the next one (group commit). `batch`: records are collected for `batchWindow` and written with one fsync: fewer fsyncs, but every request waits up to the window. Either way record() resolves only after its fsync. Default sync.',
      enum: [...DURABILITY_MODES],
      default: 'sync',
    },
    batchWindow: defaultedDurationSchema('In batch mode, how long records are collected before one write and fsync.', '50ms', '50ms'),
    writeTimeout: defaultedDurationSchema('A write and fsync taking longer than this counts as a failed disk (onFailure applies).', '5s', '50ms'),
    retryInterval: defaultedDurationSchema('While writes fail, how often the sink tries again.', '1s', '50ms'),
    onFailure: {
      description:
        'When records cannot be written (disk error, full queue, stalled disk): `closed` refuses calls until writes succeed again; `open` keeps serving, drops the records, counts them and logs an alarm. Default closed.',
      enum: [...FAILURE_MODES],
      default: 'closed',
    },
    maxQueue: {
      description: 'Records waiting for the disk at most; beyond it onFailure applies. Default 10000.',
      type: 'integer',
      minimum: 1,
      default: 10000,
    },
    maxQueueBytes: {
      description:
        'Bytes (UTF-8 of the records\' JSON) waiting for the disk at most, with maxQueue; beyond it onFailure applies, and in fail-closed mode new calls are refused until the disk catches up. One record larger than this still goes alone. Bytes, or "64MiB", ... Default "64MiB".',
      type: ['integer', 'string'],
      minimum: 1,
      pattern: BYTE_SIZE_PATTERN,
      errorMessage: 'expected a size like "64MiB" or a number of bytes',
      default: '64MiB',
    },
    groupCommitWait: defaultedDurationSchema(
      'In sync mode, how long the next write may wait for more records when at least two arrived while the previous write and fsync ran (calls overlapping) and more are still coming from requests under way; it starts as soon as the last of those has come. Fewer fsyncs under load, at most this much more latency; a lone caller never waits. 0ms: write as soon as the previous write ends.',
      '3ms',
      '3ms',
    ),
    maxStringBytes: {
      description:
        'Longest string kept whole in a record (ids, methods, names, client info, header values, reasons, event details): a longer one keeps its first bytes and ends with "…[cut N bytes]". Bounds what one request adds to the trail, so callers cannot rotate history away with huge ids or names. Not applied to recorded arguments and results. Bytes, or "1KiB", ... Default "1KiB".',
      type: ['integer', 'string'],
      minimum: 64,
      pattern: BYTE_SIZE_PATTERN,
      errorMessage: 'expected a size like "1KiB" or a number of bytes (at least 64)',
      default: '1KiB',
    },
    record: {
      description: 'How tool, prompt and completion arguments and results are recorded, unless a rule says otherwise.',
      type: 'object',
      additionalProperties: false,
      properties: { arguments: bodyMode('arguments'), results: bodyMode('results') },
    },
    redact: {
      description: 'What `redacted` removes. Each list, when given, replaces its default.',
      type: 'object',
      additionalProperties: false,
      properties: {
        keys: {
          description: `Regexes matched case-insensitively, anywhere in the key, against object keys at any depth; a matching key's whole value is redacted. Default ${JSON.stringify(DEFAULT_REDACT_KEYS)}.`,
          type: 'array',
          items: REGEX,
        },
        paths: {
          description: 'JSON paths whose values are redacted: `$.a.b`, `$.a[0]`, `$.a.*`, `$..key`, `$[\'odd key\']`. Relative to the arguments or result object. Default [].',
          type: 'array',
          items: { type: 'string', pattern: '^\\$', errorMessage: 'expected a JSON path starting with "$"' },
        },
        patterns: {
          description: `Value patterns redacted inside any string: built-in names (${BUILTIN_PATTERN_NAMES.join(', ')}) or { name, regex, flags }. Default: all built-ins.`,
          type: 'array',
          items: {
            anyOf: [
              { description: 'A built-in pattern.', enum: [...BUILTIN_PATTERN_NAMES] },
              {
                description: 'A custom pattern.',
                type: 'object',
                additionalProperties: false,
                required: ['name', 'regex'],
                properties: {
                  name: { description: 'Names the pattern in docs and logs.', type: 'string', minLength: 1 },
                  regex: REGEX,
                  flags: { description: 'Regex flags among i, m, s, u. Default "".', type: 'string', pattern: '^[imsu]*$' },
                },
              },
            ],
            errorMessage: `expected one of ${BUILTIN_PATTERN_NAMES.map((n) => JSON.stringify(n)).join(', ')} or { name, regex, flags }`,
          },
        },
      },
    },
    rules: {
      description: 'Per-tool overrides of `record`. For each of arguments and results, the first rule whose `tool` matches and that sets it wins.',
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tool'],
        minProperties: 2,
        properties: {
          tool: { description: 'Glob (`*`, `?`) over the exposed, prefixed tool name, e.g. "github__*".', type: 'string', minLength: 1 },
          arguments: bodyMode('this tool\'s arguments'),
          results: bodyMode('this tool\'s results'),
        },
      },
    },
  },
};

export interface RawAuditConfig {
  enabled?: boolean;
  dir?: string;
  file?: string;
  rotate?: { maxBytes?: string | number; maxFiles?: number };
  durability?: Durability;
  batchWindow?: RawDuration;
  writeTimeout?: RawDuration;
  retryInterval?: RawDuration;
  onFailure?: FailureMode;
  maxQueue?: number;
  maxQueueBytes?: string | number;
  groupCommitWait?: RawDuration;
  maxStringBytes?: string | number;
  record?: { arguments?: BodyMode; results?: BodyMode };
  redact?: {
    keys?: string[];
    paths?: string[];
    patterns?: (string | { name: string; regex: string; flags?: string })[];
  };
  rules?: { tool: string; arguments?: BodyMode; results?: BodyMode }[];
}
