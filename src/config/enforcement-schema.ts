// Schema fragments and raw types of the enforcement keys of the gateway config: `policy`,
// `validation` and `rateLimits` (identity has its own module, src/identity). Kept apart
// from config-schema.ts so each stays one concept and under the size limit.

export const POLICY_CONFIG_SCHEMA = {
  description:
    'Policy enforcement. Absent: no policy (every caller may see and call everything; a warning is logged at start). Present: rules from `dir` decide, and anything they do not allow is denied unless `defaultEffect` says otherwise.',
  type: 'object',
  additionalProperties: false,
  properties: {
    dir: {
      description: "Directory of policy YAML files, relative to this file's directory. Default policies.",
      default: 'policies',
      type: 'string',
      minLength: 1,
    },
    defaultEffect: {
      description: 'Effect when no rule matches. Default deny.',
      default: 'deny',
      enum: ['allow', 'deny'],
    },
    watch: {
      description: 'Reload the policy when its files change (SIGHUP always reloads). Default true.',
      default: true,
      type: 'boolean',
    },
  },
} as const;

export const VALIDATION_CONFIG_SCHEMA = {
  description: 'Checks of tool arguments and results against the tools\' own schemas.',
  type: 'object',
  additionalProperties: false,
  properties: {
    arguments: {
      description: 'Validate tools/call arguments against inputSchema before forwarding; an invalid call never reaches the upstream. Default true.',
      default: true,
      type: 'boolean',
    },
    outputs: {
      description: 'Validate structuredContent against outputSchema: off, warn (log and pass) or block (replace with an error result). Default warn.',
      default: 'warn',
      enum: ['off', 'warn', 'block'],
    },
  },
} as const;

export const RATE_LIMITS_CONFIG_SCHEMA = {
  description: 'Where rate-limit counters live: in memory (one replica) or in Redis (shared by replicas).',
  type: 'object',
  additionalProperties: false,
  properties: {
    store: { description: 'memory or redis. Default memory.', default: 'memory', enum: ['memory', 'redis'] },
    redisUrl: { description: 'redis://host:port/db when store is redis.', type: 'string', pattern: '^(rediss?://|\\$\\{)' },
    prefix: { description: 'Key prefix in Redis. Default gatehouse:rl:.', default: 'gatehouse:rl:', type: 'string' },
  },
} as const;

export interface RawPolicyConfig {
  dir?: string;
  defaultEffect?: 'allow' | 'deny';
  watch?: boolean;
}

export interface RawValidationConfig {
  arguments?: boolean;
  outputs?: 'off' | 'warn' | 'block';
}

export interface RawRateLimitsConfig {
  store?: 'memory' | 'redis';
  redisUrl?: string;
  prefix?: string;
}
