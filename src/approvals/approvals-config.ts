// The `approvals:` part of the gateway config: any input in (schema-checked here too, so a
// test or CLI gets the same messages), a frozen, fully defaulted ApprovalsConfig out
// (docs/architecture.md house style 4). Runs after ${ENV} interpolation, so keys, the webhook secret and
// URLs are judged here, and no message ever repeats a key or secret. Mounting the schema
// under `approvals:` and prefixing issue paths with `/approvals` is left to config/.
import { deepFreeze } from '../config/deep-freeze.ts';
import { durationMs, durationTooLong } from '../config/duration.ts';
import { isHttpUrl, isSecureOrLoopback } from '../identity/http-url.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { createSchemaCheck } from '../config/schema-issues.ts';
import { APPROVALS_CONFIG_SCHEMA, type RawApprovalsConfig } from './approvals-config-schema.ts';

export { APPROVALS_CONFIG_SCHEMA } from './approvals-config-schema.ts';
export type { RawApprovalsConfig } from './approvals-config-schema.ts';

export interface WebhookConfig {
  url: string;
  /** HMAC-SHA256 key, as configured. */
  secret: string;
  timeoutMs: number;
  retries: number;
  redact: boolean;
}

export interface ConsoleConfig {
  approvers: { subjects: readonly string[]; groups: readonly string[] };
  allowSelfApproval: boolean;
}

export interface ApprovalsConfig {
  /** 32-byte keys as lower-case hex; the first seals, all open. */
  keys: readonly string[];
  timeoutMs: number;
  maxPending: number;
  maxPendingPerPrincipal: number;
  store: { kind: 'memory' } | { kind: 'redis'; redisUrl: string; prefix: string };
  /** Without a trailing slash; undefined when not configured (then no webhook). */
  publicUrl: string | undefined;
  webhook: WebhookConfig | undefined;
  console: ConsoleConfig | undefined;
}

export interface ApprovalsIssue {
  /** JSON pointer relative to the `approvals` value, e.g. `/keys/1`. */
  path: string;
  message: string;
}

export const APPROVALS_DEFAULTS = {
  timeout: '5m',
  maxPending: 1000,
  maxPendingPerPrincipal: 20,
  prefix: 'gatehouse:approvals:',
  webhookTimeout: '10s',
  webhookRetries: 2,
} as const;

/** Below this, an HMAC secret is guessable offline from one signed request. */
export const MIN_WEBHOOK_SECRET_LENGTH = 32;
export const KEY_BYTES = 32;

const checkApprovalsSchema = createSchemaCheck(APPROVALS_CONFIG_SCHEMA);

/**
 * `raw` is the interpolated `approvals:` value. `baseDir` (the config file's directory) is
 * taken for symmetry with the other sections; nothing here is file-relative yet.
 */
export function normalizeApprovalsConfig(raw: unknown, _baseDir: string): Result<ApprovalsConfig, ApprovalsIssue[]> {
  const schemaIssues = checkApprovalsSchema(raw);
  if (schemaIssues.length > 0) return err(schemaIssues.map(({ path, message }) => ({ path, message })));
  const r = raw as RawApprovalsConfig;
  const issues: ApprovalsIssue[] = [];
  const issue = (path: string, message: string): void => void issues.push({ path, message });
  const ms = (value: string | number | undefined, fallback: string, path: string): number => {
    const result = durationMs(value ?? fallback);
    if (result !== undefined && result > 0) return result;
    issue(path, result === undefined ? durationTooLong(value ?? fallback) : 'expected a duration above 0');
    return 1;
  };

  const keys: string[] = [];
  r.keys.forEach((text, i) => {
    if (text === '') return;
    const key = parseKey(text);
    if (key === undefined) issue(`/keys/${i}`, `expected ${KEY_BYTES} bytes as 64 hex digits or base64 (the value is not shown)`);
    else if (keys.includes(key)) issue(`/keys/${i}`, 'the same key is listed twice');
    else keys.push(key);
  });
  if (keys.length === 0 && issues.length === 0) issue('/keys', 'expected at least one non-empty key (is the environment variable set?)');

  let publicUrl: string | undefined;
  if (r.publicUrl !== undefined) {
    if (!isHttpUrl(r.publicUrl) || new URL(r.publicUrl).search !== '' || new URL(r.publicUrl).hash !== '') {
      issue('/publicUrl', 'expected an absolute http(s) URL without query or fragment');
    } else {
      publicUrl = r.publicUrl.replace(/\/+$/, '');
    }
  }

  let store: ApprovalsConfig['store'] = { kind: 'memory' };
  if ((r.store ?? 'memory') === 'redis') {
    if (r.redisUrl === undefined) issue('/redisUrl', 'store redis needs `redisUrl`');
    else if (!/^rediss?:\/\/./.test(r.redisUrl)) issue('/redisUrl', 'expected a redis:// or rediss:// URL (the value is not shown)');
    else store = { kind: 'redis', redisUrl: r.redisUrl, prefix: r.prefix ?? APPROVALS_DEFAULTS.prefix };
  } else if (r.redisUrl !== undefined) {
    issue('/redisUrl', 'is only used with `store: redis`');
  }

  let webhook: WebhookConfig | undefined;
  if (r.webhook !== undefined) {
    const w = r.webhook;
    // Decisions may come back in the webhook's response, which is not signed: only TLS (or
    // this machine) keeps a man in the middle from answering "approve".
    if (!isHttpUrl(w.url) || !isSecureOrLoopback(new URL(w.url))) {
      issue('/webhook/url', 'expected an https URL (http only to localhost / 127.0.0.1 / [::1])');
    }
    if (w.secret.length < MIN_WEBHOOK_SECRET_LENGTH) {
      issue('/webhook/secret', `expected at least ${MIN_WEBHOOK_SECRET_LENGTH} characters (e.g. \`openssl rand -hex 32\`; the value is not shown)`);
    }
    if (r.publicUrl === undefined) issue('/publicUrl', 'the webhook channel needs `publicUrl` to build its callback URL');
    webhook = {
      url: w.url,
      secret: w.secret,
      timeoutMs: ms(w.timeout, APPROVALS_DEFAULTS.webhookTimeout, '/webhook/timeout'),
      retries: w.retries ?? APPROVALS_DEFAULTS.webhookRetries,
      redact: w.redact ?? false,
    };
  }

  let consoleConfig: ConsoleConfig | undefined;
  if (r.console !== undefined) {
    const subjects = r.console.approvers.subjects ?? [];
    const groups = r.console.approvers.groups ?? [];
    if (subjects.length + groups.length === 0) issue('/console/approvers', 'expected at least one subject or group: nobody could decide');
    consoleConfig = { approvers: { subjects, groups }, allowSelfApproval: r.console.allowSelfApproval ?? false };
  }

  const config: ApprovalsConfig = {
    keys,
    timeoutMs: ms(r.timeout, APPROVALS_DEFAULTS.timeout, '/timeout'),
    maxPending: r.maxPending ?? APPROVALS_DEFAULTS.maxPending,
    maxPendingPerPrincipal: r.maxPendingPerPrincipal ?? APPROVALS_DEFAULTS.maxPendingPerPrincipal,
    store,
    publicUrl,
    webhook,
    console: consoleConfig,
  };
  if (issues.length > 0) return err(issues);
  return ok(deepFreeze(config));
}

/** Lower-case hex of a 32-byte key written as hex, base64 or base64url; undefined otherwise. */
export function parseKey(text: string): string | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return trimmed.toLowerCase();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === KEY_BYTES ? bytes.toString('hex') : undefined;
}
