// The policy side of the `gatehouse` process, run as real child processes: `serve` with an
// invalid policy exits 2 naming the file, line and problem (also when its rate limits live in
// a Redis that nothing may leave connected), and `policy pin` prints the pins of the tools as
// the gateway merges them: used as a policy file, they keep every tool visible.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolDefinitionHash } from '../../src/policy/tool-definition-hash.ts';
import { connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { REPO_ROOT, startTestGateway } from '../harness/gateway.ts';
import { ALICE, IDENTITY_YAML, logged, modernList, policyDir } from '../harness/policy-env.ts';

const BIN = join(REPO_ROOT, 'bin/gatehouse.js');
const work = mkdtempSync(join(tmpdir(), 'gatehouse-policy-cli-'));
const BAD_POLICY = `rules:
  - id: fine
    effect: allow
  - id: broken
    effect: perhaps
`;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion (killed after `timeoutMs`, which then fails the test). */
function gatehouse(args: string[], timeoutMs = 20_000): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

// Each config in a directory of its own, so gateways started at once (describe.concurrent)
// keep their audit trails (audit/ beside the config) apart: one audit directory, one gateway.
function configFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(work, 'config-')), name);
  writeFileSync(file, text);
  return file;
}

let upstream: ModernUpstream;

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
});

afterAll(async () => {
  await upstream?.close();
});

describe.concurrent('gatehouse serve with an invalid policy', () => {
  it('exits 2 and names the policy file, line and problem', async () => {
    const dir = policyDir({ '10-rules.yaml': BAD_POLICY });
    const config = configFile('bad-policy.yaml', `policy: { dir: "${dir}" }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    const r = await gatehouse(['serve', '--config', config, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('gatehouse: invalid policy');
    expect(r.stderr).toMatch(new RegExp(`${join(dir, '10-rules.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5:\\d+ /rules/1/effect: .*(allow|deny|approve)`));
    expect(r.stderr).not.toContain('gatehouse listening');
  });

  it('exits 2 as well when rate limits are kept in Redis: no client is left connecting', async () => {
    const dir = policyDir({ '10-rules.yaml': BAD_POLICY });
    // Nothing listens on port 1: a Redis client opened before the policy failed would retry
    // forever, and the process would be killed at the timeout instead of exiting.
    const config = configFile('bad-policy-redis.yaml', `policy: { dir: "${dir}" }\nrateLimits: { store: redis, redisUrl: "redis://127.0.0.1:1" }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    const r = await gatehouse(['serve', '--config', config, '--port', '0'], 15_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/10-rules\.yaml:5:\d+ \/rules\/1\/effect/);
  });
});

describe('gatehouse policy pin', () => {
  const config = (): string => configFile('pin.yaml', `upstreams:\n  - { name: up, url: "${upstream.url}" }\n`);

  it('prints a pins file for every tool, hashed as the gateway sees them', async () => {
    const r = await gatehouse(['policy', 'pin', '--config', config()]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# yaml-language-server: \$schema=/);
    const doc = parse(r.stdout) as { pins: { tool: string; sha256: string }[] };
    expect(doc.pins.map((p) => p.tool)).toEqual(['up__add', 'up__echo', 'up__elicit', 'up__fail', 'up__query', 'up__slow']);
    // The definitions a client of a policy-less gateway gets are the ones pinned.
    const plain = await startTestGateway(`upstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    await plain.waitUp();
    const tools = (await modernList(plain.url, {})).json.result.tools as { name: string; description?: string }[];
    await plain.close();
    for (const pin of doc.pins) expect(pin.sha256).toBe(toolDefinitionHash(tools.find((t) => t.name === pin.tool)!));
  });

  it('narrows to --tool globs, and its output used as a policy keeps those tools visible', async () => {
    const r = await gatehouse(['policy', 'pin', '--config', config(), '--tool', 'up__e*', '--tool', 'up__add']);
    expect(r.code).toBe(0);
    expect((parse(r.stdout) as { pins: { tool: string }[] }).pins.map((p) => p.tool)).toEqual(['up__add', 'up__echo', 'up__elicit']);
    const dir = policyDir({
      '10-rules.yaml': 'rules:\n  - { id: analysts, effect: allow, when: { principal: [{ groups: [analysts] }] } }\n',
      '90-pins.yaml': r.stdout,
    });
    const gw = await startTestGateway(`${IDENTITY_YAML}\npolicy: { dir: "${dir}", watch: false }\nupstreams:\n  - { name: up, url: "${upstream.url}" }\n`);
    try {
      await gw.waitUp();
      const client = await connectModernClient(gw.url, { headers: ALICE });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['up__echo', 'up__add', 'up__slow', 'up__fail', 'up__query', 'up__elicit']);
      expect((await client.callTool({ name: 'up__echo', arguments: { message: 'pinned' } })).structuredContent).toEqual({ message: 'pinned' });
      await client.close();
      expect(logged(gw.logs, 'tool quarantined')).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('exits 2 naming an upstream it cannot reach, and prints no pins', async () => {
    const file = configFile('pin-down.yaml', `upstreams:\n  - { name: up, url: "${upstream.url}" }\n  - { name: gone, url: "http://127.0.0.1:1/mcp" }\n`);
    const r = await gatehouse(['policy', 'pin', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/upstream "gone" is not reachable: .+/);
    expect(r.stderr).not.toContain('"up"');
  });

  it('exits 2 for a --tool that matches nothing, a bad config, or no --config', async () => {
    const [none, bad, usage] = await Promise.all([
      gatehouse(['policy', 'pin', '--config', config(), '--tool', 'nope__*']),
      gatehouse(['policy', 'pin', '--config', configFile('pin-bad.yaml', 'upstreams: 3\n')]),
      gatehouse(['policy', 'pin']),
    ]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no tool matches "nope__*"');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('gatehouse: invalid config');
    expect(bad.stderr).toMatch(/pin-bad\.yaml:1:\d+ \/upstreams/);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--config is required');
  });
});
