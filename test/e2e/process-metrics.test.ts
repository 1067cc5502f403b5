// `metrics: { processMetrics: true }` in the config puts the Node.js process metrics
// (prom-client's default collectors) on the gateway's own GET /metrics, beside its own
// series; without it they are absent. A value that is not a boolean is a config error.
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { startTestGateway, type TestGateway } from '../harness/gateway.ts';

const gateways: TestGateway[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
});

async function metricsOf(yaml: string): Promise<string> {
  const gw = await startTestGateway(`${yaml}audit: { enabled: false }\nupstreams:\n  - { name: a, url: "http://127.0.0.1:9/mcp" }\n`);
  gateways.push(gw);
  const res = await fetch(`${new URL(gw.url).origin}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('process metrics from the config', () => {
  it('serves process_* and nodejs_* next to the gateway\'s metrics when processMetrics is true', async () => {
    const body = await metricsOf('metrics: { processMetrics: true }\n');
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(body).toContain('# TYPE process_resident_memory_bytes gauge');
    expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(body).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
    expect(body).toContain('gatehouse_upstream_up{upstream="a"}');
  });

  it('leaves them out by default', async () => {
    const body = await metricsOf('');
    expect(body).not.toContain('process_cpu_user_seconds_total');
    expect(body).not.toContain('nodejs_');
    expect(body).toContain('gatehouse_upstream_up{upstream="a"}');
  });

  it('refuses a value that is not a boolean, and a misspelt key', () => {
    const issues = (text: string): string[] => {
      try {
        parseConfig(text, '/etc/gatehouse/gatehouse.yaml', {});
      } catch (e) {
        if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
        throw e;
      }
      return [];
    };
    expect(issues('metrics: { processMetrics: "yes" }\nupstreams: []\n')).toEqual(['/metrics/processMetrics: expected boolean, got string']);
    expect(issues('metrics: { process: true }\nupstreams: []\n')).toEqual(['/metrics/process: unknown key "process" (allowed: processMetrics)']);
  });
});
