// JSON Schema (2020-12) fragment of the gateway config's `approvals:` key. Self-contained (no
// `$ref`, no `$schema`) so config/ can mount it under any property. Shape only: keys,
// secrets and URLs are checked in approvals-config.ts, after ${ENV} interpolation, with
// messages that never echo the value (a schema `pattern` error would print the secret).
// `errorMessage` is the non-standard annotation the gateway schema uses (config-schema.ts).
import { defaultedDurationSchema, type RawDuration } from '../config/duration.ts';

export const APPROVAL_STORES = ['memory', 'redis'] as const;
export type ApprovalStoreKind = (typeof APPROVAL_STORES)[number];

const NAMES = { type: 'array', items: { type: 'string', minLength: 1 } };

export const APPROVALS_CONFIG_SCHEMA = {
  description:
    'Human approval of calls that a policy rule sends for approval (effect approve, `approval.approver`: user, webhook or console). Timeouts and errors fail closed. See docs/approvals.md.',
  type: 'object',
  additionalProperties: false,
  required: ['keys'],
  properties: {
    keys: {
      description:
        'Keys that seal approval state handed to clients (AES-256-GCM): 32 random bytes each, as 64 hex digits or base64 (`openssl rand -hex 32`), usually "${APPROVAL_KEY}". The first seals, every one opens: to rotate, put the new key first and drop the old one after the longest approval timeout. Empty entries (an unset "${VAR:-}") are skipped. Never logged.',
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
    },
    timeout: defaultedDurationSchema('How long a call waits for a decision when its rule sets no `approval.timeout`; then it fails closed (expired).', '5m', '5m'),
    maxPending: {
      description: 'Pending approvals at most (across replicas when in Redis); a call beyond it is refused at once. Default 1000.',
      type: 'integer',
      minimum: 1,
      default: 1000,
    },
    maxPendingPerPrincipal: {
      description: 'Pending approvals of one principal at most, so that one caller cannot fill maxPending for everyone; a call beyond it is refused at once (503, Retry-After). Default 20.',
      type: 'integer',
      minimum: 1,
      default: 20,
    },
    store: {
      description: 'Where pending approvals live: `memory` (one replica) or `redis` (shared, so any replica can take the decision). Default memory.',
      enum: [...APPROVAL_STORES],
      default: 'memory',
    },
    redisUrl: { description: 'redis:// or rediss:// URL when store is redis.', type: 'string', minLength: 1 },
    prefix: {
      description: 'Key and channel prefix in Redis. Default "gatehouse:approvals:".',
      type: 'string',
      minLength: 1,
      default: 'gatehouse:approvals:',
    },
    publicUrl: {
      description:
        'Base URL at which approvers and webhooks reach this gateway (e.g. "https://gateway.example.com"); the webhook callback is `<publicUrl>/approvals/<id>`. Needed by the webhook channel.',
      type: 'string',
      minLength: 1,
    },
    webhook: {
      description: 'The webhook approver: a signed JSON approval request is POSTed to `url`; the decision comes back in the response or later on `POST /approvals/<id>`.',
      type: 'object',
      additionalProperties: false,
      required: ['url', 'secret'],
      properties: {
        url: { description: 'http(s) URL that receives approval requests (https outside a private network).', type: 'string', minLength: 1 },
        secret: {
          description: 'Shared HMAC-SHA256 secret that signs requests and verifies callbacks, at least 32 characters, usually "${WEBHOOK_SECRET}". Never logged.',
          type: 'string',
          minLength: 1,
        },
        timeout: defaultedDurationSchema('How long one delivery attempt may take.', '10s', '5m'),
        retries: {
          description: 'Further attempts after a delivery fails (network error, timeout, 408, 429, 5xx), with backoff; then the call fails closed. Default 2.',
          type: 'integer',
          minimum: 0,
          maximum: 10,
          default: 2,
        },
        redact: {
          description: 'Send the arguments with secrets replaced by "[REDACTED]" (the audit redaction defaults) instead of as called. Default false.',
          type: 'boolean',
          default: false,
        },
      },
    },
    console: {
      description: 'The approvals console at `/approvals`: approvers sign in with their gateway credentials and approve or deny pending calls.',
      type: 'object',
      additionalProperties: false,
      required: ['approvers'],
      properties: {
        approvers: {
          description: 'Who may decide: a principal whose subject is listed, or who is in a listed group. Anonymous callers never are.',
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            subjects: { ...NAMES, description: 'Principal subjects (API key subject or JWT `sub`).' },
            groups: { ...NAMES, description: 'Groups, after the identity claim mapping.' },
          },
        },
        allowSelfApproval: {
          description: 'Let an approver approve their own call (four-eyes off). Denying one\'s own call is always allowed. Default false.',
          type: 'boolean',
          default: false,
        },
      },
    },
  },
} as const;

export interface RawApprovalsConfig {
  keys: string[];
  timeout?: RawDuration;
  maxPending?: number;
  maxPendingPerPrincipal?: number;
  store?: ApprovalStoreKind;
  redisUrl?: string;
  prefix?: string;
  publicUrl?: string;
  webhook?: { url: string; secret: string; timeout?: RawDuration; retries?: number; redact?: boolean };
  console?: { approvers: { subjects?: string[]; groups?: string[] }; allowSelfApproval?: boolean };
}
