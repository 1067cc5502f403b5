// Builds the approval side of a gateway: the store (memory or Redis), the service (webhook
// and console channels when configured), the pipeline's ApprovalDeps, and the console and
// callback routes. Without an `approvals` section the calling-user channel still works on a
// single replica: its request state is sealed with a key made at start.
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { approvalRoutes } from '../approvals/console-routes.ts';
import type { ApprovalDeps } from '../approvals/approval-flow.ts';
import { createApprovalService, type ApprovalAuditDetail, type ApprovalAuditEvent, type ApprovalService } from '../approvals/approval-service.ts';
import { APPROVALS_DEFAULTS, type ApprovalsConfig } from '../approvals/approvals-config.ts';
import { openApprovalStore } from '../approvals/open-approval-store.ts';
import type { Authenticate } from '../identity/authenticate.ts';
import { isJsonObject } from '../protocol/message.ts';
import type { Logger } from '../telemetry/logger.ts';

export interface ApprovalsRuntime {
  service: ApprovalService;
  deps: ApprovalDeps;
  routes: Hono;
  close(): Promise<void>;
}

const SINGLE_REPLICA_DEFAULTS: ApprovalsConfig = {
  keys: [],
  timeoutMs: 5 * 60_000,
  maxPending: APPROVALS_DEFAULTS.maxPending,
  maxPendingPerPrincipal: APPROVALS_DEFAULTS.maxPendingPerPrincipal,
  store: { kind: 'memory' },
  publicUrl: undefined,
  webhook: undefined,
  console: undefined,
};

export function createApprovals(
  configured: ApprovalsConfig | undefined,
  deps: { logger: Logger; authenticate: Authenticate; audit?: (event: ApprovalAuditEvent, detail: ApprovalAuditDetail) => void; connections?: () => boolean },
): ApprovalsRuntime {
  const config = configured ?? { ...SINGLE_REPLICA_DEFAULTS, keys: [randomBytes(32).toString('hex')] };
  const store = openApprovalStore(config);
  const service = createApprovalService({ config, store, logger: deps.logger, ...(deps.audit ? { audit: deps.audit } : {}) });
  const approvalDeps: ApprovalDeps = {
    sealer: {
      seal: (p) => service.seal(p, 'mrtr'),
      unseal: (t) => {
        const r = service.unseal(t, 'mrtr');
        return r.ok && isJsonObject(r.value) ? r.value : undefined;
      },
      consumeOnce: (key, ttlMs) => service.consumeOnce(key, ttlMs),
    },
    defaultTimeoutMs: config.timeoutMs,
    channels: service.channels,
    request: (req, opts) => service.request(req, opts),
    now: Date.now,
  };
  return {
    service,
    deps: approvalDeps,
    routes: approvalRoutes({ service, config, authenticate: deps.authenticate, logger: deps.logger, ...(deps.connections ? { connections: deps.connections } : {}) }),
    close: () => store.close(),
  };
}
