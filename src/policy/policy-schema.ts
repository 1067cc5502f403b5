// JSON Schema (2020-12) of one policy file. Published as schema/policy.schema.json for
// editors (`# yaml-language-server: $schema=../schema/policy.schema.json`); a test keeps the
// file equal to this const (regenerate: npx tsx src/policy/write-policy-schemas.ts).
// Shape only: what a schema cannot say (unique rule ids and pins across files, whether an
// `arguments` schema compiles) is checked by compile-policy.ts.
//
// `errorMessage` is the same non-standard annotation as in src/config/config-schema.ts:
// when present it replaces the generic message of the schema object it sits in.

import { APPROVAL_CHANNELS, FALLBACK_CHANNELS } from '../approvals/channels/registry.ts';
import { durationSchema } from '../config/duration.ts';

export const RULE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]*$';
// RFC 9110 section 5.6.2 `token`, as x-mcp-header names are (what follows `Mcp-Param-`).
const PARAM_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
export const SHA256_PATTERN = '^[0-9a-f]{64}$';

function globsSchema(description: string): Record<string, unknown> {
  return {
    description: `${description} A glob (\`*\` any run of characters, \`?\` one) or a list of them; any may match.`,
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    ],
    errorMessage: 'expected a glob or a non-empty list of globs',
  };
}

const SCALAR_MESSAGE = 'expected a string (glob), number or boolean, or a non-empty list of them';

export const POLICY_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Gatehouse policy file',
  description:
    'Rules deciding who may see and call which MCP tools, prompts and resources through Gatehouse. Files in the policy directory load in file-name order; deny beats approve beats allow.',
  type: 'object',
  additionalProperties: false,
  properties: {
    rules: { description: 'The rules of this file.', type: 'array', items: { $ref: '#/$defs/rule' } },
    pins: {
      description: 'Tool pins against rug-pulls: the sha256 of a tool definition (description + schemas; with version 2 also title and annotations). A tool whose definition no longer hashes to its pin is quarantined.',
      type: 'array',
      items: { $ref: '#/$defs/pin' },
    },
    tests: {
      description: 'Not allowed here: policy tests live in separate *.test.yaml files.',
      not: {},
      errorMessage: 'tests belong in a separate *.test.yaml file next to the policies',
    },
  },
  $defs: {
    rule: {
      description: 'One rule: when all of its conditions hold, it contributes its effect.',
      type: 'object',
      additionalProperties: false,
      required: ['id', 'effect'],
      properties: {
        id: {
          description: 'Unique across all policy files; decisions and audit records name it.',
          type: 'string',
          pattern: RULE_ID_PATTERN,
          errorMessage: 'expected an id of letters, digits, "_", ".", ":" or "-", starting with a letter or digit',
        },
        description: { description: 'For humans; shown in decision reasons.', type: 'string' },
        effect: {
          description: 'allow, deny (beats everything) or approve (a human must approve each call; beats allow).',
          enum: ['allow', 'deny', 'approve'],
        },
        when: { $ref: '#/$defs/when' },
        approval: { $ref: '#/$defs/approval' },
        rateLimit: { $ref: '#/$defs/rateLimit' },
      },
      if: { required: ['effect'], properties: { effect: { const: 'approve' } } },
      then: { required: ['approval'], errorMessage: 'effect approve needs `approval: { approver: <channel> }`' },
      else: {
        properties: {
          approval: { not: {}, errorMessage: '`approval` applies only to rules with effect approve' },
        },
      },
    },
    when: {
      description: 'Conditions; all present ones must hold. Omitted: the rule applies to every principal and call.',
      type: 'object',
      additionalProperties: false,
      properties: {
        principal: {
          description: 'Who: any one entry must match; each entry needs all of its fields.',
          type: 'array',
          minItems: 1,
          items: { $ref: '#/$defs/principal' },
        },
        upstream: globsSchema('Upstream names.'),
        server: globsSchema('Virtual server names (`servers` in the gateway config). A rule with `server` never matches on the default endpoint.'),
        tool: globsSchema('Exposed (prefixed) tool names, e.g. "weather__*".'),
        prompt: globsSchema('Exposed (prefixed) prompt names.'),
        resource: globsSchema('Resource URIs or URI templates as clients see them.'),
        params: {
          description:
            'Decoded Mcp-Param-* header values, keyed by the name after "Mcp-Param-" (case-insensitive); each value is a glob or a list. A missing parameter does not match.',
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: PARAM_NAME_PATTERN, errorMessage: 'expected a header name token such as "Region"' },
          additionalProperties: globsSchema('Values.'),
        },
        arguments: {
          description: 'A JSON Schema (2020-12) the call arguments must satisfy; absent arguments are checked as {}.',
          type: 'object',
        },
      },
    },
    principal: {
      description: 'One way to be the caller: all fields given must hold.',
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        subject: globsSchema('The principal subject (JWT sub or API key subject).'),
        groups: globsSchema('Holds when the principal has any group matching any of these.'),
        scopes: globsSchema('Holds when the principal was granted any scope matching any of these.'),
        claims: {
          description: 'Claim name -> expected value: strings are globs, numbers and booleans must be equal; a list means any of them. An array claim matches when any element does.',
          type: 'object',
          minProperties: 1,
          additionalProperties: {
            oneOf: [
              { type: ['string', 'number', 'boolean'] },
              { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } },
            ],
            errorMessage: SCALAR_MESSAGE,
          },
        },
        anonymous: { description: 'true: only unauthenticated callers; false: only authenticated ones.', type: 'boolean' },
      },
    },
    approval: {
      description: 'Who approves (effect approve only).',
      type: 'object',
      additionalProperties: false,
      required: ['approver'],
      properties: {
        approver: { description: 'Who approves: "user" (the calling user, through their client), "webhook" or "console".', enum: [...APPROVAL_CHANNELS] },
        fallback: {
          description: 'Channel to use when the approver cannot be reached for this call, e.g. approver user with a client that cannot elicit.',
          enum: [...FALLBACK_CHANNELS],
        },
        timeout: {
          description: 'How long to wait for the approver: "30s", "5m", or milliseconds.',
          ...durationSchema('5m'),
        },
      },
    },
    rateLimit: {
      description: 'A token bucket for calls this rule allows or sends for approval: `capacity` tokens, refilled at one of perSecond / perMinute / perHour.',
      type: 'object',
      additionalProperties: false,
      required: ['capacity'],
      properties: {
        capacity: { description: 'Bucket size: the largest burst.', type: 'integer', minimum: 1 },
        perSecond: { description: 'Tokens refilled per second.', type: 'number', exclusiveMinimum: 0 },
        perMinute: { description: 'Tokens refilled per minute.', type: 'number', exclusiveMinimum: 0 },
        perHour: { description: 'Tokens refilled per hour.', type: 'number', exclusiveMinimum: 0 },
        per: {
          description: 'What the bucket is keyed by. Default principal.',
          default: 'principal',
          enum: ['principal', 'tool', 'upstream', 'principal+tool'],
        },
      },
      oneOf: [{ required: ['perSecond'] }, { required: ['perMinute'] }, { required: ['perHour'] }],
      errorMessage: 'rateLimit needs `capacity` and exactly one of perSecond, perMinute, perHour',
    },
    pin: {
      description: 'Pins one exposed tool to the sha256 of its definition (see docs/policy.md for what is hashed).',
      type: 'object',
      additionalProperties: false,
      required: ['tool', 'sha256'],
      properties: {
        tool: { description: 'Exposed (prefixed) tool name; not a glob.', type: 'string', minLength: 1 },
        sha256: {
          description: '64 lowercase hex digits, as `gatehouse policy pin` writes them.',
          type: 'string',
          pattern: SHA256_PATTERN,
          errorMessage: 'expected 64 lowercase hex digits',
        },
        version: {
          description: 'What the hash covers: 1 (default) description and schemas; 2 also title and annotations (destructiveHint and the other hints), as `gatehouse policy pin --include-annotations` writes it.',
          enum: [1, 2],
          default: 1,
          errorMessage: 'expected pin version 1 or 2',
        },
      },
    },
  },
} as const;

// The shape POLICY_SCHEMA accepts, for the compiler.
export type Globs = string | readonly string[];
export type ClaimValue = string | number | boolean;

export interface RawPrincipalMatch {
  subject?: Globs;
  groups?: Globs;
  scopes?: Globs;
  claims?: Readonly<Record<string, ClaimValue | readonly ClaimValue[]>>;
  anonymous?: boolean;
}

export interface RawWhen {
  principal?: readonly RawPrincipalMatch[];
  upstream?: Globs;
  server?: Globs;
  tool?: Globs;
  prompt?: Globs;
  resource?: Globs;
  params?: Readonly<Record<string, Globs>>;
  arguments?: Readonly<Record<string, unknown>>;
}

export interface RawRateLimit {
  capacity: number;
  perSecond?: number;
  perMinute?: number;
  perHour?: number;
  per?: 'principal' | 'tool' | 'upstream' | 'principal+tool';
}

export interface RawRule {
  id: string;
  description?: string;
  effect: 'allow' | 'deny' | 'approve';
  when?: RawWhen;
  approval?: { approver: string; fallback?: string; timeout?: string | number };
  rateLimit?: RawRateLimit;
}

export interface RawPolicyFile {
  rules?: readonly RawRule[];
  pins?: readonly { tool: string; sha256: string; version?: 1 | 2 }[];
}
