// Waits for every upstream of a gateway to report "up", on their state events (the
// conformance runner runs outside vitest, so the harness's vi.waitUntil is not for it).
import type { Upstream } from '../../src/upstream/upstream.ts';

export function upstreamsUp(upstreams: readonly Upstream[], timeoutMs = 10_000): Promise<void> {
  const allUp = () => upstreams.every((u) => u.status().state === 'up');
  if (allUp()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`upstreams not up: ${JSON.stringify(upstreams.map((u) => u.status()))}`)), timeoutMs);
    for (const u of upstreams) {
      u.onEvent((ev) => {
        if (ev.type !== 'state' || !allUp()) return;
        clearTimeout(timer);
        resolve();
      });
    }
  });
}
