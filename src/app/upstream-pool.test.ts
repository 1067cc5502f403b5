import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UpstreamConfig } from '../config/types.ts';
import type { GatewayError } from '../protocol/errors.ts';
import type { JsonObject } from '../protocol/message.ts';
import { ok, type Result } from '../protocol/result.ts';
import { createMemoryLogger } from '../telemetry/logger.ts';
import type { Upstream, UpstreamStatus } from '../upstream/upstream.ts';
import { UpstreamPool } from './upstream-pool.ts';

/** An upstream whose requests answer when the test says so. */
class HeldUpstream implements Upstream {
  readonly events: string[] = [];
  private readonly held: (() => void)[] = [];
  constructor(readonly config: UpstreamConfig) {}
  get name(): string {
    return this.config.name;
  }
  async start(): Promise<void> {
    this.events.push('start');
  }
  request(): Promise<Result<JsonObject, GatewayError>> {
    return new Promise((resolve) => this.held.push(() => resolve(ok({}))));
  }
  answerAll(): void {
    for (const a of this.held.splice(0)) a();
  }
  status(): UpstreamStatus {
    return { name: this.name, transport: 'http', state: 'up', era: 'modern', since: 0 };
  }
  identity(): undefined {
    return undefined;
  }
  onEvent(): void {}
  async close(): Promise<void> {
    this.events.push('close');
  }
}

const cfg = (name: string, url = `http://127.0.0.1:1/${name}`): UpstreamConfig => ({ kind: 'http', name, url }) as unknown as UpstreamConfig;

function pool() {
  const made: HeldUpstream[] = [];
  const announced: string[] = [];
  const { logger, lines } = createMemoryLogger();
  const p = new UpstreamPool({
    make: (c) => {
      const u = new HeldUpstream(c);
      made.push(u);
      return u;
    },
    logger,
    onMade: (u) => void announced.push(u.name),
  });
  return { p, made, announced, lines };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('UpstreamPool', () => {
  it('keeps what did not change, makes the rest, and starts only once committed', async () => {
    const { p, made, announced } = pool();
    const boot = p.open([cfg('a'), cfg('b')]);
    const plan = p.plan([cfg('a'), cfg('b', 'http://127.0.0.1:2/b'), cfg('c')], { added: ['c'], removed: [], changed: ['b'], kept: ['a'] });
    expect(plan.upstreams[0]).toBe(boot[0]);
    expect(plan.made.map((u) => u.name)).toEqual(['b', 'c']);
    expect(plan.retired).toEqual([boot[1]]);
    expect(made.slice(2).map((u) => u.events)).toEqual([[], []]);
    p.commit(plan);
    await Promise.resolve();
    expect(p.current()).toBe(plan.upstreams);
    expect(made.slice(2).map((u) => u.events)).toEqual([['start'], ['start']]);
    expect(announced).toEqual(['a', 'b', 'b', 'c']);
  });

  it('a discarded plan closes what it made and leaves the pool as it was', async () => {
    const { p, made } = pool();
    const boot = p.open([cfg('a')]);
    const plan = p.plan([cfg('a', 'http://127.0.0.1:2/a')], { added: [], removed: [], changed: ['a'], kept: [] });
    await p.discard(plan);
    expect(made[1]!.events).toEqual(['close']);
    expect(p.current()).toBe(boot);
  });

  it('closes a retired connection only after its call in flight has answered', async () => {
    const { p, made } = pool();
    const [old] = p.open([cfg('a')]);
    const call = old!.request({ method: 'tools/call', params: {}, clientCapabilities: {} });
    const plan = p.plan([], { added: [], removed: ['a'], changed: [], kept: [] });
    p.commit(plan);
    const retired = p.retire(plan.retired, 60_000);
    await Promise.resolve();
    expect(made[0]!.events).toEqual([]);
    expect(old!.inFlight).toBe(1);
    made[0]!.answerAll();
    expect((await call).ok).toBe(true);
    await retired;
    expect(made[0]!.events).toEqual(['close']);
  });

  it('closes it at the deadline when a call is still running, and says so', async () => {
    vi.useFakeTimers();
    const { p, made, lines } = pool();
    const [old] = p.open([cfg('a')]);
    void old!.request({ method: 'tools/call', params: {}, clientCapabilities: {} });
    const plan = p.plan([], { added: [], removed: ['a'], changed: [], kept: [] });
    p.commit(plan);
    const retired = p.retire(plan.retired, 5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(made[0]!.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await retired;
    expect(made[0]!.events).toEqual(['close']);
    expect(lines.find((l) => l.msg === 'retired upstream connection still had calls in flight at the deadline; closing it')).toMatchObject({ upstream: 'a', inFlight: 1, deadlineMs: 5_000 });
  });
});
