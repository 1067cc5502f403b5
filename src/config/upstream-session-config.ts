// How many upstream sessions a 2025-11-25 HTTP upstream gets: one shared by every client (the
// default), or one per client session (`session: perClient`), so that what the upstream
// sends outside any call, on its GET stream, has one client it can go to (README, Protocol
// eras: requests outside a call). The schema keys, their defaults and the normalised form.

/** Default of maxClientSessions: upstream sessions held per upstream at once. */
export const DEFAULT_MAX_CLIENT_SESSIONS = 100;
/** Highest maxClientSessions: each one can hold an upstream connection open (its GET stream). */
export const MAX_CLIENT_SESSIONS_CAP = 10_000;

export type UpstreamSessionMode = 'shared' | 'perClient';

export interface UpstreamSessionConfig {
  mode: UpstreamSessionMode;
  /** perClient: most upstream sessions held at once; past it the least recently used idle one is closed. */
  maxClientSessions: number;
}

export const UPSTREAM_SESSION_PROPERTIES = {
  session: {
    description:
      'shared (default): one upstream session serves every client; a request the upstream sends outside any call is refused (-32601). perClient: each 2025-11-25 client session gets its own upstream session, opened at its first call and closed with it, and the upstream\'s requests and notifications outside a call go to that client\'s GET stream. 2026-07-28 clients have no session and use the shared one. HTTP upstreams with `url` only.',
    enum: ['shared', 'perClient'],
    default: 'shared',
  },
  maxClientSessions: {
    description: `With session perClient: most upstream sessions held at once; past it the least recently used one without a call in flight is closed (its client gets a new one at its next call), and when all are busy the call is refused (503). Default ${DEFAULT_MAX_CLIENT_SESSIONS}.`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_CLIENT_SESSIONS_CAP,
    default: DEFAULT_MAX_CLIENT_SESSIONS,
  },
};

export interface RawUpstreamSession {
  session?: UpstreamSessionMode;
  maxClientSessions?: number;
}

export function normalizeUpstreamSession(u: RawUpstreamSession): UpstreamSessionConfig {
  return { mode: u.session ?? 'shared', maxClientSessions: u.maxClientSessions ?? DEFAULT_MAX_CLIENT_SESSIONS };
}
