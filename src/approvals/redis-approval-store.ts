// The approval store in Redis, shared by every replica: the page or the webhook callback can
// be answered by any replica, and the replica holding the waiting call learns of it at once.
//
// Layout (prefix P, default "gatehouse:approvals:"):
//   P a:<id>     hash { request: JSON, expiresAt, outcome?: JSON }, expires DECIDED_RETENTION_MS
//                after the approval does
//   P pending    sorted set of pending ids scored by expiresAt (the console's list)
//   P once:<k>   single-use markers (SET NX PX)
//   P decided    pub/sub channel; the message is the id of a decided approval
// The decision is one Lua script (atomic on the server): it never parses the stored JSON, so
// the request a human saw is byte-for-byte the one kept. Waiting subscribes on a second
// connection; a message can be missed while that connection is down, so waiters are
// re-checked when it (re)connects and every `pollIntervalMs` while any are waiting.
import type { Redis } from 'ioredis';
import { err, ok } from '../protocol/result.ts';
import type { ApprovalOutcome, ApprovalRequest } from './approval.ts';
import { DECIDED_RETENTION_MS, isClosingDecision, type ApprovalStore, type StoredApproval } from './approval-store.ts';
import { createDecisionWaiters } from './decision-waiters.ts';

// KEYS[1] record, KEYS[2] pending index; ARGV outcome JSON, at, closing ("1"/"0"), id, channel.
const DECIDE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'not_found'} end
local existing = redis.call('HGET', KEYS[1], 'outcome')
if existing then return {'already_decided', existing} end
if ARGV[3] == '0' and tonumber(redis.call('HGET', KEYS[1], 'expiresAt')) <= tonumber(ARGV[2]) then return {'expired'} end
redis.call('HSET', KEYS[1], 'outcome', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[4])
return {'ok'}
`;

type DecideReply = ['not_found'] | ['already_decided', string] | ['expired'] | ['ok'];

export interface RedisApprovalStoreOptions {
  prefix?: string;
  now?: () => number;
  /** How often waiters are re-checked in case a pub/sub message was lost. Default 5000. */
  pollIntervalMs?: number;
}

export function createRedisApprovalStore(redis: Redis, opts: RedisApprovalStoreOptions = {}): ApprovalStore {
  const prefix = opts.prefix ?? 'gatehouse:approvals:';
  const now = opts.now ?? Date.now;
  const pollIntervalMs = opts.pollIntervalMs ?? 5_000;
  const recordKey = (id: string): string => `${prefix}a:${id}`;
  const pendingKey = `${prefix}pending`;
  const channel = `${prefix}decided`;
  let subscriber: Redis | undefined;
  let subscribed: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;
  redis.defineCommand('gatehouseApprovalDecide', { numberOfKeys: 2, lua: DECIDE_SCRIPT });
  const decideScript = (redis as unknown as { gatehouseApprovalDecide(...a: string[]): Promise<DecideReply> }).gatehouseApprovalDecide.bind(redis);

  const get = async (id: string): Promise<StoredApproval | undefined> => {
    const [request, outcome] = await redis.hmget(recordKey(id), 'request', 'outcome');
    if (request === null || request === undefined) return undefined;
    return { request: JSON.parse(request) as ApprovalRequest, outcome: outcome ? (JSON.parse(outcome) as ApprovalOutcome) : undefined };
  };

  const stopPolling = (): void => {
    if (poller !== undefined) clearInterval(poller);
    poller = undefined;
  };
  const waiters = createDecisionWaiters(stopPolling);
  const check = async (id: string): Promise<void> => {
    const stored = await get(id).catch(() => undefined);
    if (stored?.outcome !== undefined) waiters.settle(id, stored.outcome);
  };
  // Polling goes on whatever one check met: a failed check is the next poll's to repeat.
  const retryLater = (): void => undefined;
  const checkAll = (): void => void Promise.all(waiters.ids().map(check)).catch(retryLater);

  const subscribe = (): Promise<void> => {
    if (subscribed !== undefined) return subscribed;
    // Re-subscribing after a reconnect is ours, not ioredis's: its own autoResubscribe leaves
    // the SUBSCRIBE's promise unhandled, and a close during a reconnect would reject it as an
    // unhandled rejection (which ends a Node process). What was published meanwhile is lost,
    // so every waiter is checked once the subscription is back.
    const sub = redis.duplicate({ autoResubscribe: false });
    subscriber = sub;
    sub.on('error', () => undefined);
    sub.on('message', (ch: string, id: string) => {
      if (ch === channel && waiters.has(id)) void check(id).catch(retryLater);
    });
    let readyBefore = false;
    sub.on('ready', () => {
      if (!readyBefore) {
        readyBefore = true;
        return;
      }
      sub.subscribe(channel).then(checkAll, () => undefined);
    });
    subscribed = sub.subscribe(channel).then(
      () => undefined,
      () => {
        // Polling still covers the waiters; the next waiter tries to subscribe again.
        subscribed = undefined;
      },
    );
    return subscribed;
  };

  return {
    async create(request) {
      const t = now();
      const ttl = Math.max(1, request.expiresAt - t + DECIDED_RETENTION_MS);
      const key = recordKey(request.id);
      const results = await redis
        .multi()
        .hsetnx(key, 'request', JSON.stringify(request))
        .hset(key, 'expiresAt', String(request.expiresAt))
        .pexpire(key, ttl)
        .zadd(pendingKey, request.expiresAt, request.id)
        .zremrangebyscore(pendingKey, '-inf', t - DECIDED_RETENTION_MS)
        .exec();
      if (results === null) throw new Error('redis transaction aborted');
      const failed = results.find(([e]) => e !== null);
      if (failed) throw failed[0] as Error;
      if (results[0]?.[1] !== 1) throw new Error(`approval ${request.id} already exists`);
    },
    get,
    async listPending() {
      const ids = await redis.zrangebyscore(pendingKey, `(${now()}`, '+inf');
      const stored = await Promise.all(ids.map(get));
      return stored
        .filter((s): s is StoredApproval => s !== undefined && s.outcome === undefined)
        .map((s) => s.request)
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async countPending() {
      return redis.zcount(pendingKey, `(${now()}`, '+inf');
    },
    async decide(id, outcome) {
      const reply = await decideScript(recordKey(id), pendingKey, JSON.stringify(outcome), String(outcome.at), isClosingDecision(outcome) ? '1' : '0', id, channel);
      switch (reply[0]) {
        case 'ok':
          // This replica's waiters need no round trip through pub/sub.
          waiters.settle(id, outcome);
          return ok(outcome);
        case 'already_decided':
          return err({ kind: 'already_decided', outcome: JSON.parse(reply[1]) as ApprovalOutcome });
        case 'expired':
          return err({ kind: 'expired' });
        default:
          return err({ kind: 'not_found' });
      }
    },
    async consumeOnce(key, ttlMs) {
      const reply = await redis.set(`${prefix}once:${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      return reply === 'OK';
    },
    async waitForDecision(id, signal) {
      if (signal.aborted) return undefined;
      const decided = waiters.wait(id, signal);
      poller ??= setInterval(checkAll, pollIntervalMs);
      poller.unref();
      // Subscribed first, then read: a decision made in between is seen by one or the other.
      void subscribe().then(() => check(id)).catch(retryLater);
      return decided;
    },
    async close() {
      stopPolling();
      waiters.clear();
      await subscriber?.quit().catch(() => undefined);
      await redis.quit().catch(() => undefined);
    },
  };
}
