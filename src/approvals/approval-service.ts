// The approval service: holds a call until a human decides, for the webhook and console
// channels (and for the 'user' channel when its caller delivers the question and reports
// the answer through decide()). One request() covers exactly one call, once:
//   create the pending approval -> notify the channel -> wait for the decision on any replica
//   -> the outcome. Every path that is not an explicit approval ends denied, expired or
// cancelled (fail closed): store errors, delivery failures, timeouts, the caller going away.
// Each decision is audited once, by the replica whose compare-and-set won.
// Also holds seal/unseal (sealed-token.ts) and consumeOnce for the MRTR requestState.
// Forwarding the call, progress notifications and the 'user' channel's protocol are the
// pipeline's.
import { randomBytes } from 'node:crypto';
import type { JsonValue } from '../protocol/message.ts';
import { err, type Result } from '../protocol/result.ts';
import type { Logger } from '../telemetry/logger.ts';
import type { ApprovalChannel, ApprovalDecision, ApprovalOutcome, ApprovalRequest } from './approval.ts';
import type { ApprovalsConfig } from './approvals-config.ts';
import type { ApprovalStore, StoredApproval } from './approval-store.ts';
import { createSealer, type UnsealError } from './sealed-token.ts';
import type { WebhookChannel } from './channels/webhook-channel.ts';
import { createHeldChannels } from './channels/build-held-channels.ts';

export type ApprovalDraft = Omit<ApprovalRequest, 'id' | 'createdAt' | 'expiresAt'>;

export interface RequestOptions {
  /** Aborted when the caller goes away: the approval is cancelled. */
  signal: AbortSignal;
  /** The rule's timeout; default config.timeoutMs. */
  timeoutMs?: number;
  /** Called every `waitingIntervalMs` while waiting, to keep the client's stream alive. */
  onWaiting?: (elapsedMs: number) => void;
  /** Called once the pending approval exists (its id, for links or the 'user' channel). */
  onCreated?: (request: ApprovalRequest) => void;
}

export type ApprovalAuditEvent = 'approval_requested' | 'approval_decided';

export interface ApprovalAuditDetail {
  id: string;
  /** The channel the rule named. */
  channel: ApprovalChannel;
  subject: string;
  authContext: string;
  method: ApprovalRequest['method'];
  upstream: string;
  name: string;
  ruleId: string;
  argumentsDigest: string;
  createdAt: number;
  expiresAt: number;
  /** approval_decided only. */
  decision?: ApprovalDecision;
  by?: string;
  /** Channel the decision came through. */
  decidedVia?: ApprovalChannel;
  at?: number;
  reason?: string;
}

export type DecideError =
  | { kind: 'not_found' }
  | { kind: 'already_decided'; outcome: ApprovalOutcome }
  | { kind: 'expired' }
  | { kind: 'wrong_channel' }
  | { kind: 'self_approval' }
  | { kind: 'unavailable' };

export interface ApprovalService {
  request(draft: ApprovalDraft, opts: RequestOptions): Promise<ApprovalOutcome>;
  /** An approver's decision: through `channel`, which must be the one the rule named. */
  decide(id: string, decision: 'approved' | 'denied', by: string, channel: ApprovalChannel, reason?: string): Promise<Result<ApprovalOutcome, DecideError>>;
  /** The held channels this service can carry requests on (from the config). */
  readonly channels: ReadonlySet<ApprovalChannel>;
  /** Pending approvals, oldest first; only those of `channel` when given. */
  pending(channel?: ApprovalChannel): Promise<ApprovalRequest[]>;
  get(id: string): Promise<StoredApproval | undefined>;
  seal(payload: JsonValue, context?: string): string;
  unseal(token: string, context?: string): Result<JsonValue, UnsealError>;
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
}

export interface ApprovalServiceDeps {
  config: ApprovalsConfig;
  store: ApprovalStore;
  logger: Logger;
  audit?: (event: ApprovalAuditEvent, detail: ApprovalAuditDetail) => void;
  now?: () => number;
  /** Default 5000. */
  waitingIntervalMs?: number;
  /** Default: createWebhookChannel(config.webhook) when configured. */
  webhook?: WebhookChannel;
}

/** `by` of outcomes the gateway itself decides (timeouts, failures, cancellation). */
export const GATEWAY_ACTOR = 'gatehouse';

/** 144 random bits, URL-safe: the id is the capability to address an approval. */
export function newApprovalId(): string {
  return randomBytes(18).toString('base64url');
}

export function createApprovalService(deps: ApprovalServiceDeps): ApprovalService {
  const { config, store } = deps;
  const now = deps.now ?? Date.now;
  const waitingIntervalMs = deps.waitingIntervalMs ?? 5_000;
  const log = deps.logger.child({ component: 'approvals' });
  const sealer = createSealer(config.keys);
  const channels = createHeldChannels(config, { logger: deps.logger, now, ...(deps.webhook ? { webhook: deps.webhook } : {}) });

  const audit = (event: ApprovalAuditEvent, request: ApprovalRequest, outcome?: ApprovalOutcome): void => {
    const detail: ApprovalAuditDetail = {
      id: request.id,
      channel: request.channel,
      subject: request.principal.subject,
      authContext: request.principal.authContext,
      method: request.method,
      upstream: request.upstream,
      name: request.name,
      ruleId: request.ruleId,
      argumentsDigest: request.argumentsDigest,
      createdAt: request.createdAt,
      expiresAt: request.expiresAt,
      ...(outcome === undefined
        ? {}
        : { decision: outcome.decision, by: outcome.by ?? GATEWAY_ACTOR, decidedVia: outcome.channel, at: outcome.at, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) }),
    };
    try {
      deps.audit?.(event, detail);
    } catch (e) {
      log.error('approval audit callback failed', { event, approvalId: request.id, error: e as Error });
    }
  };

  /** Compare-and-set, audited when it wins; the outcome that stands either way. */
  const settleInStore = async (request: ApprovalRequest, outcome: ApprovalOutcome): Promise<Result<ApprovalOutcome, DecideError>> => {
    let result;
    try {
      result = await store.decide(request.id, outcome);
    } catch (e) {
      log.error('approval store unavailable', { approvalId: request.id, error: e as Error });
      return err({ kind: 'unavailable' });
    }
    if (result.ok) {
      audit('approval_decided', request, result.value);
      log.info('approval decided', { approvalId: request.id, decision: outcome.decision, by: outcome.by, channel: outcome.channel });
    }
    return result;
  };

  const closed = (channel: ApprovalChannel, decision: ApprovalDecision, reason: string): ApprovalOutcome => ({ decision, by: GATEWAY_ACTOR, channel, at: now(), reason });

  const wait = (request: ApprovalRequest, opts: RequestOptions): Promise<ApprovalOutcome> =>
    new Promise((resolve) => {
      const local = new AbortController();
      let done = false;
      const settle = (outcome: ApprovalOutcome): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(ticker);
        opts.signal.removeEventListener('abort', onAbort);
        local.abort();
        resolve(outcome);
      };
      // Ends the wait from this side; if a decision won the race, that decision stands.
      const finish = (decision: ApprovalDecision, reason: string): void => {
        const mine = closed(request.channel, decision, reason);
        void settleInStore(request, mine).then(
          (r) => {
            if (r.ok) return settle(r.value);
            if (r.error.kind === 'already_decided') return settle(r.error.outcome);
            // Store gone or record lost: `mine` is never an approval, so this fails closed.
            settle(mine);
          },
          (e: unknown) => {
            log.error('approval could not be closed', { approvalId: request.id, error: e as Error });
            settle(mine);
          },
        );
      };
      const onAbort = (): void => finish('cancelled', 'the caller went away before a decision');
      const timer = setTimeout(() => finish('expired', `no decision within ${request.expiresAt - request.createdAt} ms`), Math.max(0, request.expiresAt - now()));
      const ticker = setInterval(() => {
        try {
          opts.onWaiting?.(now() - request.createdAt);
        } catch (e) {
          log.warn('onWaiting callback failed', { approvalId: request.id, error: e as Error });
        }
      }, waitingIntervalMs);
      opts.signal.addEventListener('abort', onAbort, { once: true });
      // An abort while the approval was being created fired before the listener existed.
      if (opts.signal.aborted) onAbort();
      void store.waitForDecision(request.id, local.signal).then((o) => o !== undefined && settle(o), () => undefined);
      const channel = channels.get(request.channel);
      void channel?.announce(request, local.signal).then(
        (r) => {
          if (done || r.kind === 'accepted') return;
          if (r.kind === 'failed') return finish('denied', `${request.channel} delivery failed: ${r.reason}`);
          const outcome: ApprovalOutcome = { decision: r.decision, by: r.by ?? request.channel, channel: request.channel, at: now(), ...(r.reason === undefined ? {} : { reason: r.reason }) };
          void settleInStore(request, outcome).then(
            (s) => {
              if (s.ok) settle(s.value);
              else if (s.error.kind === 'already_decided') settle(s.error.outcome);
              else finish('denied', `the ${request.channel}'s decision could not be recorded (${s.error.kind})`);
            },
            (e: unknown) => finish('denied', `the ${request.channel}'s decision could not be recorded (${(e as Error).message})`),
          );
        },
        (e: unknown) => {
          log.error('approval channel failed', { approvalId: request.id, channel: request.channel, error: e as Error });
          finish('denied', `${request.channel} delivery failed`);
        },
      );
    });

  /** Which cap a new pending approval of this principal would break: everyone's
   * (maxPending), or its own share (maxPendingPerPrincipal), so one caller cannot fill the
   * queue and have everyone else refused. */
  const capacityRefusal = async (authContext: string): Promise<{ limit: 'maxPending' | 'maxPendingPerPrincipal'; reason: string } | undefined> => {
    if ((await store.countPending()) >= config.maxPending) return { limit: 'maxPending', reason: `too many pending approvals (approvals.maxPending: at most ${config.maxPending})` };
    if (config.maxPendingPerPrincipal >= config.maxPending) return undefined;
    const own = (await store.listPending()).filter((r) => r.principal.authContext === authContext).length;
    if (own >= config.maxPendingPerPrincipal) return { limit: 'maxPendingPerPrincipal', reason: `this principal has ${own} approvals pending (approvals.maxPendingPerPrincipal: at most ${config.maxPendingPerPrincipal})` };
    return undefined;
  };

  return {
    async request(draft, opts) {
      const channel = draft.channel;
      if (opts.signal.aborted) return closed(channel, 'cancelled', 'the caller went away before the approval was requested');
      if (channel !== 'user' && !channels.has(channel)) return closed(channel, 'denied', `the ${channel} approval channel is not configured`);
      const createdAt = now();
      const request: ApprovalRequest = { ...draft, id: newApprovalId(), createdAt, expiresAt: createdAt + (opts.timeoutMs ?? config.timeoutMs) };
      try {
        const full = await capacityRefusal(draft.principal.authContext);
        if (full) {
          log.warn('too many pending approvals', { limit: full.limit, subject: draft.principal.subject, maxPending: config.maxPending, maxPendingPerPrincipal: config.maxPendingPerPrincipal });
          return { ...closed(channel, 'denied', full.reason), limit: full.limit };
        }
        await store.create(request);
      } catch (e) {
        log.error('approval store unavailable', { error: e as Error });
        return closed(channel, 'denied', 'the approval store is unavailable');
      }
      audit('approval_requested', request);
      log.info('approval requested', { approvalId: request.id, channel, subject: request.principal.subject, upstream: request.upstream, name: request.name, ruleId: request.ruleId });
      try {
        opts.onCreated?.(request);
      } catch (e) {
        log.warn('onCreated callback failed', { approvalId: request.id, error: e as Error });
      }
      return wait(request, opts);
    },

    async decide(id, decision, by, channel, reason) {
      let stored: StoredApproval | undefined;
      try {
        stored = await store.get(id);
      } catch {
        return err({ kind: 'unavailable' });
      }
      if (stored === undefined) return err({ kind: 'not_found' });
      if (stored.outcome !== undefined) return err({ kind: 'already_decided', outcome: stored.outcome });
      // A rule that names the console is not answered by a webhook, and the other way round.
      if (stored.request.channel !== channel) return err({ kind: 'wrong_channel' });
      const refused = channels.get(channel)?.refuses(stored.request, decision, by);
      if (refused) return err({ kind: refused });
      return settleInStore(stored.request, { decision, by, channel, at: now(), ...(reason === undefined ? {} : { reason }) });
    },

    channels: new Set(channels.keys()),
    async pending(channel) {
      const all = await store.listPending();
      return channel === undefined ? all : all.filter((r) => r.channel === channel);
    },
    get: (id) => store.get(id),
    seal: (payload, context) => sealer.seal(payload, context),
    unseal: (token, context) => sealer.unseal(token, context),
    consumeOnce: (key, ttlMs) => store.consumeOnce(key, ttlMs),
  };
}
