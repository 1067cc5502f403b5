// Fixtures for approval tests: a call waiting for approval, a config with fresh keys, and the
// approvals sub-app served on 127.0.0.1:0 the way the gateway mounts it.
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { ApprovalChannel, ApprovalRequest } from '../../src/approvals/approval.ts';
import type { ApprovalsConfig } from '../../src/approvals/approvals-config.ts';
import { createApprovalService, type ApprovalDraft, type ApprovalService, type ApprovalServiceDeps } from '../../src/approvals/approval-service.ts';
import { createMemoryApprovalStore } from '../../src/approvals/approval-store.ts';
import { approvalRoutes } from '../../src/approvals/console-routes.ts';
import { createAuthenticator } from '../../src/identity/authenticate.ts';
import { normalizeIdentityConfig } from '../../src/identity/identity-config.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { digestJson } from '../../src/audit/digest.ts';
import type { JsonObject } from '../../src/protocol/message.ts';

export function approvalDraft(overrides: Partial<ApprovalDraft> & { channel: ApprovalChannel }): ApprovalDraft {
  const args: JsonObject = overrides.arguments ?? { path: '/srv/data', recursive: true };
  return {
    principal: { subject: 'bob', authContext: 'key:bob', groups: ['dev'] },
    method: 'tools/call',
    upstream: 'files',
    name: 'files__delete',
    upstreamName: 'delete',
    arguments: args,
    argumentsDigest: digestJson(args),
    ruleId: 'deletes-need-approval',
    ...overrides,
  };
}

export function approvalRequest(overrides: Partial<ApprovalRequest> & { channel: ApprovalChannel; createdAt: number; expiresAt: number }): ApprovalRequest {
  return { id: randomBytes(18).toString('base64url'), ...approvalDraft(overrides), ...overrides };
}

export function approvalsConfig(overrides: Partial<ApprovalsConfig> = {}): ApprovalsConfig {
  return {
    keys: [randomBytes(32).toString('hex')],
    timeoutMs: 60_000,
    maxPending: 100,
    maxPendingPerPrincipal: 100,
    store: { kind: 'memory' },
    publicUrl: undefined,
    webhook: undefined,
    console: { approvers: { subjects: ['carol'], groups: ['approvers'] }, allowSelfApproval: false },
    ...overrides,
  };
}

/** API keys of the approvals servers below: carol and dave approve, eve and bob do not. */
export const APPROVER_KEYS = {
  carol: 'carol-approver-key-0123456789abcdef',
  dave: 'dave-approver-key-0123456789abcdef',
  eve: 'eve-visitor-key-0123456789abcdef',
  bob: 'bob-caller-key-0123456789abcdef',
} as const;

export interface ApprovalsServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (the publicUrl). */
  url: string;
  config: ApprovalsConfig;
  service: ApprovalService;
  events: { event: string; detail: unknown }[];
  close(): Promise<void>;
}

/**
 * The approvals sub-app served on 127.0.0.1:0 with its real service, memory store and API-key
 * identity. `configure` receives the publicUrl (known once the port is) and adjusts the config;
 * `deps` may depend on the config so made.
 */
export async function startApprovalsServer(
  configure: (publicUrl: string) => Partial<ApprovalsConfig> = () => ({}),
  deps: Partial<ApprovalServiceDeps> | ((config: ApprovalsConfig) => Partial<ApprovalServiceDeps>) = {},
): Promise<ApprovalsServer> {
  let handler: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: (req) => handler(req), hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    s.once('error', reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = approvalsConfig({ publicUrl: url, ...configure(url) });
  const identity = normalizeIdentityConfig(
    {
      resource: `${url}/mcp`,
      apiKeys: [
        { id: 'carol', sha256: sha256Hex(APPROVER_KEYS.carol), subject: 'carol', groups: ['finance'] },
        { id: 'dave', sha256: sha256Hex(APPROVER_KEYS.dave), subject: 'dave', groups: ['approvers'] },
        { id: 'eve', sha256: sha256Hex(APPROVER_KEYS.eve), subject: 'eve', groups: ['dev'] },
        { id: 'bob', sha256: sha256Hex(APPROVER_KEYS.bob), subject: 'bob', groups: ['dev'] },
      ],
    },
    '.',
  );
  if (!identity.ok) throw new Error(JSON.stringify(identity.error));
  const logger = createLogger({ level: 'error', sink: { write: () => undefined } });
  const store = createMemoryApprovalStore();
  const events: { event: string; detail: unknown }[] = [];
  const service = createApprovalService({ config, store, logger, audit: (event, detail) => events.push({ event, detail }), waitingIntervalMs: 100, ...(typeof deps === 'function' ? deps(config) : deps) });
  const app = approvalRoutes({ service, config, authenticate: createAuthenticator(identity.value), logger });
  handler = app.fetch;
  return {
    url,
    config,
    service,
    events,
    async close() {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
      await store.close();
    },
  };
}

/** The principals of the end-to-end approval suites: bob calls, carol (group approvers) decides. */
export const CALLER_KEY = 'approvals-caller-key-0123456789abcdef';
export const APPROVER_KEY = 'approvals-approver-key-0123456789abcd';

/** The gateway's `identity:` section for them, with `resource` as the protected resource. */
export function approvalsIdentityYaml(resource: string): string {
  return `identity:
  resource: ${resource}
  apiKeys:
    - { id: caller, sha256: "${sha256Hex(CALLER_KEY)}", subject: bob }
    - { id: approver, sha256: "${sha256Hex(APPROVER_KEY)}", subject: carol, groups: [approvers] }`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
