// The calls waiting for a decision in this process, by approval id: what every ApprovalStore's
// waitForDecision parks on. How a decision reaches settle() (a local decide, or Redis pub/sub
// and polling) is the store's business; this only keeps the waiters and lets go of an aborted
// one at once, so a cancelled call leaves nothing behind.
import type { ApprovalOutcome } from './approval.ts';

export interface DecisionWaiters {
  /** The outcome settle() gives `id`, or undefined when `signal` aborts first. */
  wait(id: string, signal: AbortSignal): Promise<ApprovalOutcome | undefined>;
  /** Resolves, and forgets, every waiter of `id`. */
  settle(id: string, outcome: ApprovalOutcome): void;
  has(id: string): boolean;
  ids(): string[];
  clear(): void;
}

/** `onIdle` runs whenever a settle or an abort leaves no waiter at all. */
export function createDecisionWaiters(onIdle: () => void = () => undefined): DecisionWaiters {
  const waiters = new Map<string, Set<(outcome: ApprovalOutcome) => void>>();
  return {
    wait(id, signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const onDecision = (outcome: ApprovalOutcome): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        };
        const onAbort = (): void => {
          set.delete(onDecision);
          if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
          if (waiters.size === 0) onIdle();
          resolve(undefined);
        };
        set.add(onDecision);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    settle(id, outcome) {
      const set = waiters.get(id);
      waiters.delete(id);
      for (const resolve of set ?? []) resolve(outcome);
      if (waiters.size === 0) onIdle();
    },
    has: (id) => waiters.has(id),
    ids: () => [...waiters.keys()],
    clear: () => waiters.clear(),
  };
}
