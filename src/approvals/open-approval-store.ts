// Builds the approval store the config names. The Redis client gets bounded waits, so a slow
// or absent Redis fails the approval (closed) instead of hanging calls; errors are handled by
// the store's callers, not logged per event here.
import { Redis } from 'ioredis';
import type { ApprovalsConfig } from './approvals-config.ts';
import { createMemoryApprovalStore, type ApprovalStore } from './approval-store.ts';
import { createRedisApprovalStore } from './redis-approval-store.ts';

export function openApprovalStore(config: Pick<ApprovalsConfig, 'store'>, opts: { now?: () => number } = {}): ApprovalStore {
  if (config.store.kind === 'memory') return createMemoryApprovalStore(opts);
  const redis = new Redis(config.store.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 2000, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  return createRedisApprovalStore(redis, { prefix: config.store.prefix, ...opts });
}
