// Starts a whole gateway in-process for end-to-end tests: the YAML goes through the real
// config loader, the gateway listens on 127.0.0.1 port 0, logs are kept in memory so tests
// can assert on them.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectConfigFile, loadConfig } from '../../src/config/load-config.ts';
import type { GatewayConfig } from '../../src/config/types.ts';
import { createMemoryLogger } from '../../src/telemetry/logger.ts';
import type { LogFields } from '../../src/telemetry/logger.ts';
import { startGateway, type RunningGateway } from '../../src/app/start-gateway.ts';
import type { OpenAuditFile } from '../../src/audit/audit-file-writer.ts';

export interface TestGateway extends RunningGateway {
  config: GatewayConfig;
  logs: LogFields[];
  /** Waits until every upstream reports state "up" (or the timeout passes). */
  waitUp(timeoutMs?: number): Promise<void>;
}

export const REPO_ROOT = new URL('../..', import.meta.url).pathname;
export const EVERYTHING_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** `yaml` is a gateway config; `listen` is forced to 127.0.0.1:0 unless it sets its own.
 * `reload`: the gateway reloads its file (`config.file`) when it changes, as `gatehouse serve` does. */
export async function startTestGateway(yaml: string, env: NodeJS.ProcessEnv = process.env, opts: { port?: number; now?: () => number; reload?: boolean; openAuditFile?: OpenAuditFile } = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-test-'));
  const file = join(dir, 'gatehouse.yaml');
  writeFileSync(file, yaml);
  const overrides = { host: '127.0.0.1', port: opts.port ?? 0 };
  const config = loadConfig(file, env, overrides);
  const { logger, lines } = createMemoryLogger();
  const reload = opts.reload ? { reload: { load: () => collectConfigFile(file, env, overrides), watch: true } } : {};
  const audit = opts.openAuditFile ? { openAuditFile: opts.openAuditFile } : {};
  const gw = await startGateway(config, logger, { env, ...(opts.now ? { now: opts.now } : {}), ...reload, ...audit });
  return {
    ...gw,
    config,
    logs: lines,
    async waitUp(timeoutMs = 10_000) {
      // Woken by the upstreams' own state events, not vi.waitUntil: the conformance runner
      // uses this harness under plain node, where vi.waitUntil never sees a state change.
      const allUp = (): boolean => gw.upstreams.every((u) => u.status().state === 'up');
      if (allUp()) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`upstreams not up: ${JSON.stringify(gw.upstreams.map((u) => u.status()))}`)), timeoutMs);
        for (const u of gw.upstreams) {
          u.onEvent((ev) => {
            if (ev.type === 'state' && allUp()) {
              clearTimeout(timer);
              resolve();
            }
          });
        }
      });
    },
  };
}

export function modernBody(id: number | string, method: string, params: Record<string, unknown> = {}, caps: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': caps,
        'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1' },
        ...((params._meta as Record<string, unknown>) ?? {}),
      },
    },
  };
}

export function modernHeaders(method: string, name?: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
    ...extra,
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** The request records of a running test gateway's audit trail, as written so far. */
export function auditRequests(gw: TestGateway): Record<string, any>[] {
  const file = join(gw.config.audit.dir, gw.config.audit.file);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'request');
}

/** The event records (type "event") of a running test gateway's audit trail, as written so far. */
export function auditEvents(gw: TestGateway): Record<string, any>[] {
  const file = join(gw.config.audit.dir, gw.config.audit.file);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'event');
}
