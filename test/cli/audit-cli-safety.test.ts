// `gatehouse audit tail|query` reading what real clients put into the trail, and
// `gatehouse serve` failing after the config was accepted: the operator's terminal gets
// plain text (never a client's control sequences) and every bad input a clear message.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModernUpstream, type ModernUpstream } from '../fixtures/modern-upstream.ts';
import { REPO_ROOT, modernBody, modernHeaders, postJson, startTestGateway, type TestGateway } from '../harness/gateway.ts';

const BIN = join(REPO_ROOT, 'bin/gatehouse.js');
const root = mkdtempSync(join(tmpdir(), 'gatehouse-cli-safety-'));
const auditDir = join(root, 'trail');
// OSC 0 (set the window title) and CSI 2J (clear the screen): what a hostile client could
// make an operator's terminal do if `audit tail` printed the method it sent as is (the
// audit record keeps what the client sent; a header mismatch is recorded too).
const ESCAPES = '\u001b]0;owned\u0007\u001b[2J';
// A right-to-left override makes "\u202Eevil\u202C" display as "live"; NEL (C1) and a
// zero-width space act or hide too. JSON.stringify writes all of them raw.
const HIDDEN = '\u202Eevil\u202C\u0085\u200B';
const RAW_HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

let upstream: ModernUpstream;
let gw: TestGateway;

function gatehouse(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  upstream = await startModernUpstream({ name: 'up' });
  gw = await startTestGateway(`
audit:
  dir: "${auditDir}"
upstreams:
  - { name: up, url: "${upstream.url}" }
`);
  await gw.waitUp();
  const method = `x/${ESCAPES}`;
  await postJson(gw.url, modernBody(1, method), modernHeaders('x/y'));
  await postJson(gw.url, modernBody(`id-${HIDDEN}`, `x/${HIDDEN}`), modernHeaders('x/y'));
  await gw.close();
});

afterAll(async () => {
  await upstream?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('gatehouse audit tail and query print client-supplied text inertly', () => {
  it('escapes control characters of a client-chosen method in the human format', () => {
    for (const sub of ['tail', 'query']) {
      const r = gatehouse('audit', sub, '--dir', auditDir);
      expect(r.status).toBe(0);
      // The records are there, and shown with their control characters escaped.
      expect(r.stdout).toContain('x/\\u001b]0;owned\\u0007\\u001b[2J');
      expect(r.stdout).toContain('x/\\u202eevil\\u202c\\u0085\\u200b');
      expect(r.stdout).not.toMatch(RAW_HIDDEN);
    }
  });

  it('escapes bidi, C1 and invisible characters in --json output too, as JSON escapes of the same values', () => {
    for (const sub of ['tail', 'query']) {
      const r = gatehouse('audit', sub, '--dir', auditDir, '--json');
      expect(r.status).toBe(0);
      expect(r.stdout).not.toMatch(RAW_HIDDEN);
      expect(r.stdout).toContain('\\u001b]0;owned');
      expect(r.stdout).toContain('"method":"x/\\u202eevil\\u202c\\u0085\\u200b"');
      // jq and friends read exactly what was stored.
      const stored = readFileSync(join(auditDir, 'gatehouse-audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const printed = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number });
      for (const p of printed) expect(p).toEqual(stored.find((x) => x.seq === p.seq));
      expect(printed.some((p) => (p as { method?: string }).method === `x/${HIDDEN}`)).toBe(true);
    }
  });
});

describe('gatehouse audit query refuses arguments it cannot match', () => {
  it('exits 2 naming the accepted outcomes for an unknown --outcome', () => {
    const r = gatehouse('audit', 'query', '--dir', auditDir, '--outcome', 'sucess');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('gatehouse audit query: --outcome must be one of ok, tool_error, error, denied, rate_limited, approval_required, cancelled; got "sucess"');
  });

  it('still accepts the outcomes the gateway records', () => {
    const errors = gatehouse('audit', 'query', '--dir', auditDir, '--outcome', 'error');
    expect(errors.status).toBe(0);
    expect(errors.stdout).toContain(' error (-32020)');
    expect(gatehouse('audit', 'query', '--dir', auditDir, '--outcome', 'approval_required')).toMatchObject({ status: 0, stdout: '' });
  });
});

describe('gatehouse serve failing after the config was accepted', () => {
  it('says it cannot start and why, not that it cannot listen, when the audit directory cannot be made', () => {
    const blocker = join(root, 'not-a-dir');
    writeFileSync(blocker, '');
    const file = join(root, 'bad-audit-dir.yaml');
    writeFileSync(file, `listen: { port: 0 }\naudit: { dir: "${join(blocker, 'audit')}" }\nupstreams: []\n`);
    const r = gatehouse('serve', '--config', file);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('cannot listen');
    expect(r.stderr).toContain(`gatehouse: cannot start: ENOTDIR: not a directory, mkdir '${join(blocker, 'audit')}'`);
  });

  it('still names the address when the port is taken', async () => {
    const { createServer } = await import('node:net');
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    try {
      const file = join(root, 'taken.yaml');
      writeFileSync(file, `listen: { port: ${port} }\naudit: { dir: "${join(root, 'taken-audit')}" }\nupstreams: []\n`);
      const r = gatehouse('serve', '--config', file);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`gatehouse: cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
});
