import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANONYMOUS_PRINCIPAL } from '../identity/principal.ts';
import type { LegacySession } from './legacy-sessions.ts';
import { openLegacyStream, openListenStream } from './listen-streams.ts';
import { Notifier, type StreamEvent } from './notifier.ts';

const LIMITS = { maxLifetimeMs: 3_600_000, idleTimeoutMs: 1_000, now: () => Date.now() };
const LISTEN = { jsonrpc: '2.0' as const, id: 'l-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } };

function notifier(): { n: Notifier; ended: string[] } {
  const n = new Notifier();
  const ended: string[] = [];
  n.onStream((e: StreamEvent) => {
    if (e.event === 'stream_closed') ended.push(String(e.detail.reason));
  });
  return { n, ended };
}

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('the idle timeout of notification streams', () => {
  it('ends a listen stream that sent nothing for limits.streamIdleTimeout, as at its lifetime', () => {
    const { n, ended } = notifier();
    openListenStream(LISTEN, n, ANONYMOUS_PRINCIPAL, LIMITS);
    expect(n.size()).toBe(1);
    vi.advanceTimersByTime(999);
    expect(n.size()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(n.size()).toBe(0);
    expect(ended).toEqual(['idle']);
  });

  it('starts the idle period again with every message sent on the stream', () => {
    const { n, ended } = notifier();
    openListenStream(LISTEN, n, ANONYMOUS_PRINCIPAL, LIMITS);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(900);
      n.publish('tools');
    }
    expect(n.size()).toBe(1);
    // Kinds the stream did not ask for are not sent, so they are no activity either.
    vi.advanceTimersByTime(900);
    n.publish('prompts');
    vi.advanceTimersByTime(100);
    expect(n.size()).toBe(0);
    expect(ended).toEqual(['idle']);
  });

  it('ends a quiet legacy GET stream the same way, and counts a message for its session as activity', () => {
    const { n, ended } = notifier();
    const session = { id: 's-1' } as LegacySession;
    openLegacyStream(session, n, ANONYMOUS_PRINCIPAL, LIMITS);
    vi.advanceTimersByTime(900);
    n.sendToSession('s-1', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } });
    vi.advanceTimersByTime(900);
    expect(n.size()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(n.size()).toBe(0);
    expect(ended).toEqual(['idle']);
  });

  it('leaves the lifetime in charge when it is the shorter', () => {
    const { n, ended } = notifier();
    openListenStream(LISTEN, n, ANONYMOUS_PRINCIPAL, { ...LIMITS, maxLifetimeMs: 500 });
    vi.advanceTimersByTime(500);
    expect(ended).toEqual(['lifetime']);
    vi.advanceTimersByTime(5_000);
    expect(ended).toEqual(['lifetime']);
  });
});
