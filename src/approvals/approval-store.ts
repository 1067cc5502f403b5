// Where pending approvals live between the request and the decision, and the single-use
// markers that stop replays. The contract every store keeps:
//   - a decision is a compare-and-set from pending: the first one wins, a second is refused
//     and told what the first was (so two approvers, or an approver racing the timeout, can
//     never both take effect);
//   - approve/deny are refused once the approval has expired; expired/cancelled (written by
//     the waiting side) are accepted while it is pending, whenever that is;
//   - waitForDecision resolves on a decision made through any store instance sharing the
//     backing (memory: this process; Redis: every replica), and with undefined on abort.
// This file holds the contract and the in-memory store (one replica); redis-approval-store.ts
// holds the shared one. Infrastructure failures throw; the service turns them into fail-closed
// outcomes.
import type { ApprovalOutcome, ApprovalRequest } from './approval.ts';
import { err, ok, type Result } from '../protocol/result.ts';
import { createDecisionWaiters } from './decision-waiters.ts';

export interface StoredApproval {
  request: ApprovalRequest;
  /** Undefined while pending. */
  outcome: ApprovalOutcome | undefined;
}

export type DecideRefusal =
  | { kind: 'not_found' }
  | { kind: 'already_decided'; outcome: ApprovalOutcome }
  | { kind: 'expired' };

export interface ApprovalStore {
  /** Stores a new pending approval; its id must be fresh. */
  create(request: ApprovalRequest): Promise<void>;
  get(id: string): Promise<StoredApproval | undefined>;
  /** Pending and not yet expired, oldest first. */
  listPending(): Promise<ApprovalRequest[]>;
  countPending(): Promise<number>;
  /** Compare-and-set from pending; `outcome.at` is the time the expiry is judged at. */
  decide(id: string, outcome: ApprovalOutcome): Promise<Result<ApprovalOutcome, DecideRefusal>>;
  /** True the first time `key` is seen within `ttlMs`, false on every repeat (replays). */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
  /** The outcome once decided (at once when it already is); undefined when `signal` aborts. */
  waitForDecision(id: string, signal: AbortSignal): Promise<ApprovalOutcome | undefined>;
  close(): Promise<void>;
}

/**
 * How long a record outlives its expiry, so a late webhook callback or console click is told
 * "already decided" (409) rather than "unknown" (404), and a slow waiter still finds it.
 */
export const DECIDED_RETENTION_MS = 10 * 60_000;

/** Decisions that only the waiting side writes, accepted even after expiry. */
export function isClosingDecision(outcome: ApprovalOutcome): boolean {
  return outcome.decision === 'expired' || outcome.decision === 'cancelled';
}

export function createMemoryApprovalStore(opts: { now?: () => number } = {}): ApprovalStore {
  const now = opts.now ?? Date.now;
  const records = new Map<string, StoredApproval>();
  const markers = new Map<string, number>();
  const waiters = createDecisionWaiters();

  // Sweeps run on writes, so an idle gateway holds at most what it last saw.
  const sweep = (): void => {
    const t = now();
    for (const [id, r] of records) if (r.request.expiresAt + DECIDED_RETENTION_MS <= t) records.delete(id);
    for (const [key, until] of markers) if (until <= t) markers.delete(key);
  };
  const isPending = (r: StoredApproval, t: number): boolean => r.outcome === undefined && r.request.expiresAt > t;

  return {
    async create(request) {
      sweep();
      if (records.has(request.id)) throw new Error(`approval ${request.id} already exists`);
      records.set(request.id, { request, outcome: undefined });
    },
    async get(id) {
      return records.get(id);
    },
    async listPending() {
      const t = now();
      return [...records.values()]
        .filter((r) => isPending(r, t))
        .map((r) => r.request)
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async countPending() {
      const t = now();
      let n = 0;
      for (const r of records.values()) if (isPending(r, t)) n += 1;
      return n;
    },
    async decide(id, outcome) {
      const r = records.get(id);
      if (r === undefined) return err({ kind: 'not_found' });
      if (r.outcome !== undefined) return err({ kind: 'already_decided', outcome: r.outcome });
      if (!isClosingDecision(outcome) && r.request.expiresAt <= outcome.at) return err({ kind: 'expired' });
      r.outcome = outcome;
      waiters.settle(id, outcome);
      return ok(outcome);
    },
    async consumeOnce(key, ttlMs) {
      const t = now();
      const until = markers.get(key);
      if (until !== undefined && until > t) return false;
      if (markers.size > 10_000) sweep();
      markers.set(key, t + ttlMs);
      return true;
    },
    waitForDecision(id, signal) {
      const decided = records.get(id)?.outcome;
      if (decided !== undefined) return Promise.resolve(decided);
      return waiters.wait(id, signal);
    },
    async close() {
      records.clear();
      markers.clear();
      waiters.clear();
    },
  };
}
