// The names under which a configured limit's refusals and cuts are counted and audited.

/** The configured limits (`limits.*` keys of the gateway config) counted by
 * `gatehouse_limit_hits_total`; README, Limits, says what each one refuses. */
export const LIMIT_NAMES = [
  'maxBodyBytes', 'maxHeaderBytes', 'maxHeaderCount', 'bodyTimeout', 'maxJsonDepth', 'maxUpstreamAnswerBytes',
  'catalogCacheBytes', 'maxSessions', 'maxSessionsPerPrincipal', 'maxStreams', 'maxStreamsPerPrincipal', 'streamMaxLifetime', 'streamIdleTimeout',
  'maxConcurrentPerPrincipal', 'maxQueuedCalls', 'queueTimeout', 'maxInflightAnswerBytes',
  'maxConnections', 'maxConcurrentRequests', 'maxConcurrentRequestsPerPrincipal',
  'inputTimeout', 'maxSuspendedCalls', 'maxSuspendedCallsPerPrincipal',
  // Under `upstreams[]`: a call waited because its upstream ran maxConcurrent calls; a call
  // was refused because every per-client upstream session was busy.
  'maxConcurrent', 'maxClientSessions',
  // Under `approvals`, not `limits`: the pending-approval caps.
  'maxPending', 'maxPendingPerPrincipal',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

const LIMIT_NAME_SET: ReadonlySet<string> = new Set(LIMIT_NAMES);

export function isLimitName(name: string): name is LimitName {
  return LIMIT_NAME_SET.has(name);
}
