// The gateway of the end-to-end approval suites: approvals on, the console's approvers the
// group `approvers`, policy rules from a fresh directory, one upstream as `up`. Its port is
// chosen first because approvals.publicUrl (the links approvers get) must name it. And the
// approver's side of the console API: find a pending call by tool name and decide it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import { CONSOLE_CSRF_HEADER, CONSOLE_CSRF_VALUE } from '../../src/approvals/console-routes.ts';
import { APPROVER_KEY } from './approvals.ts';
import { freePort } from './free-port.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';

/** A fresh policy directory holding `rules` as its rules.yaml. */
export function rulesDir(prefix: string, rules: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'rules.yaml'), rules);
  return dir;
}

export interface ApprovalsGatewaySpec {
  /** The `identity:` section (YAML). */
  identity: string;
  /** The policy directory (see rulesDir). */
  policyDir: string;
  upstreamUrl: string;
  /** approvals.keys[0]: 64 hex digits. */
  key: string;
  /** Further lines under `approvals:`, indented by two. */
  approvals?: string;
  /** Further top-level YAML. */
  extra?: string;
  /** The port, when the caller needed it before (in `identity`, say); a free one by default. */
  port?: number;
}

export interface ApprovalsGateway {
  gw: TestGateway;
  /** http://127.0.0.1:<port>: the gateway's origin and approvals.publicUrl. */
  origin: string;
}

/** Starts the gateway and waits until it is up. */
export async function startApprovalsGateway(spec: ApprovalsGatewaySpec): Promise<ApprovalsGateway> {
  const port = spec.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const gw = await startTestGateway(
    `
${spec.identity}
policy: { dir: "${spec.policyDir}" }
${spec.extra ?? ''}
approvals:
  keys: ["${spec.key}"]
  publicUrl: ${origin}
  console: { approvers: { groups: [approvers] } }
${spec.approvals ?? ''}
upstreams:
  - { name: up, url: "${spec.upstreamUrl}" }
`,
    process.env,
    { port },
  );
  await gw.waitUp();
  return { gw, origin };
}

/** Waits until the console API at `origin` lists a pending call of tool `name`, approves it
 * as the approver, and answers the decision's HTTP status. */
export async function approveOnConsole(origin: string, name: string): Promise<number> {
  const headers = { authorization: `Bearer ${APPROVER_KEY}` };
  const id = await vi.waitUntil(async () => {
    const list = (await (await fetch(`${origin}/approvals/api/pending`, { headers })).json()) as { approvals?: { id: string; name: string }[] };
    return list.approvals?.find((a) => a.name === name)?.id;
  }, { timeout: 10_000, interval: 50 });
  const r = await fetch(`${origin}/approvals/${id}/decision`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', [CONSOLE_CSRF_HEADER]: CONSOLE_CSRF_VALUE, origin },
    body: JSON.stringify({ decision: 'approve' }),
  });
  return r.status;
}
