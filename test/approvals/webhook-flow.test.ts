// The webhook approver end to end: the service POSTs a signed approval request to a real
// HTTP receiver on 127.0.0.1; the receiver answers in its response, or later through the
// signed callback `POST /approvals/{id}` on the approvals sub-app served by @hono/node-server.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest } from '../../src/approvals/approval.ts';
import { createWebhookChannel, type WebhookChannelDeps } from '../../src/approvals/channels/webhook-channel.ts';
import { signBody, SIGNATURE_HEADER, verifySignature } from '../../src/approvals/webhook-signature.ts';
import { digestJson } from '../../src/audit/digest.ts';
import { createLogger } from '../../src/telemetry/logger.ts';
import { approvalDraft, startApprovalsServer, type ApprovalsServer } from '../harness/approvals.ts';

const SECRET = 'webhook-secret-0123456789abcdef-0123456789';

interface Received {
  headers: IncomingMessage['headers'];
  raw: string;
  body: Record<string, unknown>;
}

type Answer = (received: Received, res: ServerResponse) => void;

let receiver: Server;
let receiverUrl: string;
let answer: Answer;
let received: Received[] = [];
const servers: ApprovalsServer[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const r = { headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown> };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterEach(async () => {
  received = [];
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

/** `sleep`: the channel's waits between attempts, instead of real ones. */
async function gateway(opts: { retries?: number; redact?: boolean; url?: string; sleep?: WebhookChannelDeps['sleep'] } = {}): Promise<ApprovalsServer> {
  const { sleep } = opts;
  const s = await startApprovalsServer(
    () => ({ webhook: { url: opts.url ?? receiverUrl, secret: SECRET, timeoutMs: 2000, retries: opts.retries ?? 0, redact: opts.redact ?? false } }),
    (config) => (sleep ? { webhook: createWebhookChannel(config.webhook!, { publicUrl: config.publicUrl!, logger: createLogger({ level: 'error', sink: { write: () => undefined } }), sleep }) } : {}),
  );
  servers.push(s);
  return s;
}

const json = (res: ServerResponse, status: number, body?: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body === undefined ? '' : JSON.stringify(body));
};

/** A callback as a receiver sends it: signed now with the shared secret. */
async function callback(s: ApprovalsServer, id: string, body: unknown, opts: { secret?: string; at?: number; header?: string } = {}): Promise<{ status: number; body: Record<string, unknown>; header: string }> {
  const raw = JSON.stringify(body);
  const header = opts.header ?? signBody(opts.secret ?? SECRET, raw, opts.at ?? Date.now() / 1000);
  const res = await fetch(`${s.url}/approvals/${id}`, { method: 'POST', headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: header }, body: raw });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, header };
}

function request(s: ApprovalsServer, draft = approvalDraft({ channel: 'webhook' }), timeoutMs?: number): { outcome: Promise<ApprovalOutcome>; created: Promise<ApprovalRequest> } {
  let created!: (r: ApprovalRequest) => void;
  const createdP = new Promise<ApprovalRequest>((r) => (created = r));
  const outcome = s.service.request(draft, { signal: new AbortController().signal, onCreated: created, ...(timeoutMs ? { timeoutMs } : {}) });
  return { outcome, created: createdP };
}

describe('webhook approvals', () => {
  it('POSTs a signed approval request and takes the decision from the response', async () => {
    const s = await gateway();
    answer = (_r, res) => json(res, 200, { decision: 'approve', by: 'alice@oncall' });
    const { outcome, created } = request(s);
    expect(await outcome).toMatchObject({ decision: 'approved', by: 'alice@oncall', channel: 'webhook' });
    const { id, expiresAt } = await created;

    expect(received).toHaveLength(1);
    const got = received[0] as Received;
    expect(got.headers['content-type']).toBe('application/json');
    expect(verifySignature(SECRET, got.headers['gatehouse-signature'] as string, got.raw, Date.now() / 1000).ok).toBe(true);
    const args = { path: '/srv/data', recursive: true };
    expect(got.body).toEqual({
      type: 'approval.requested',
      id,
      principal: { subject: 'bob', groups: ['dev'] },
      call: { method: 'tools/call', upstream: 'files', name: 'files__delete', upstreamName: 'delete', arguments: args, argumentsRedacted: false, argumentsDigest: digestJson(args) },
      ruleId: 'deletes-need-approval',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      expiresAt: new Date(expiresAt).toISOString(),
      callbackUrl: `${s.url}/approvals/${id}`,
    });
    expect(s.events.map((e) => e.event)).toEqual(['approval_requested', 'approval_decided']);
    expect(s.events[1]?.detail).toMatchObject({ decision: 'approved', by: 'alice@oncall', decidedVia: 'webhook' });
  });

  it('sends redacted arguments when webhook.redact is on (the digest still binds the real ones)', async () => {
    const s = await gateway({ redact: true });
    answer = (_r, res) => json(res, 200, { decision: 'deny' });
    const args = { user: 'root', password: 'hunter2', note: 'Authorization: Bearer abc.def.ghi' };
    const { outcome } = request(s, approvalDraft({ channel: 'webhook', arguments: args, argumentsDigest: digestJson(args) }));
    expect(await outcome).toMatchObject({ decision: 'denied', by: 'webhook' });
    const call = (received[0] as Received).body['call'] as Record<string, unknown>;
    expect(call['arguments']).toMatchObject({ user: 'root', password: '[REDACTED]' });
    expect(JSON.stringify(call)).not.toContain('hunter2');
    expect(call['argumentsRedacted']).toBe(true);
    expect(call['argumentsDigest']).toBe(digestJson(args));
  });

  it('after a 202, the signed callback decides: the waiting call resolves at once', async () => {
    const s = await gateway();
    let callbackUrl = '';
    answer = (r, res) => {
      callbackUrl = r.body['callbackUrl'] as string;
      json(res, 202, { status: 'pending' });
    };
    const { outcome, created } = request(s);
    const { id } = await created;
    await expect.poll(() => callbackUrl, { timeout: 5000 }).not.toBe('');
    expect(callbackUrl).toBe(`${s.url}/approvals/${id}`);
    expect((await s.service.get(id))?.outcome).toBeUndefined();

    const good = await callback(s, id, { id, decision: 'deny', by: 'change-bot', reason: 'change freeze' });
    expect(good.status).toBe(200);
    expect(await outcome).toMatchObject({ decision: 'denied', by: 'change-bot', reason: 'change freeze', channel: 'webhook' });

    // The same signed message again is a replay; a fresh one is told the decision stands.
    const replay = await callback(s, id, { id, decision: 'deny', by: 'change-bot', reason: 'change freeze' }, { header: good.header });
    expect(replay.status).toBe(401);
    expect(replay.body['message']).toMatch(/already received/);
    const late = await callback(s, id, { id, decision: 'approve', by: 'someone-else' });
    expect(late).toMatchObject({ status: 409, body: { error: 'already_decided', outcome: { decision: 'denied' } } });
  });

  it('refuses callbacks with a bad signature, an old timestamp, another id or bad JSON, and keeps waiting', async () => {
    const s = await gateway();
    answer = (_r, res) => json(res, 202);
    const { outcome, created } = request(s);
    const { id } = await created;
    const other = await request(s).created;

    expect((await callback(s, id, { id, decision: 'approve' }, { secret: 'x'.repeat(40) })).body).toMatchObject({ error: 'invalid_signature', message: /mismatch/ });
    expect((await callback(s, id, { id, decision: 'approve' }, { at: Date.now() / 1000 - 301 })).body).toMatchObject({ message: /stale/ });
    expect((await callback(s, id, { id, decision: 'approve' }, { header: 'nonsense' })).body).toMatchObject({ message: /malformed/ });
    const unsigned = await fetch(`${s.url}/approvals/${id}`, { method: 'POST', body: JSON.stringify({ id, decision: 'approve' }) });
    expect(unsigned.status).toBe(401);
    // A validly signed decision for one approval cannot decide another.
    expect(await callback(s, id, { id: other.id, decision: 'approve' })).toMatchObject({ status: 400, body: { message: /must be the approval id/ } });
    expect(await callback(s, id, { id, decision: 'yes please' })).toMatchObject({ status: 400 });
    expect(await callback(s, 'A'.repeat(24), { id: 'A'.repeat(24), decision: 'approve' })).toMatchObject({ status: 404 });
    expect((await s.service.get(id))?.outcome).toBeUndefined();

    expect((await callback(s, id, { id, decision: 'approve', by: 'ops' })).status).toBe(200);
    expect(await outcome).toMatchObject({ decision: 'approved', by: 'ops' });
    await s.service.decide(other.id, 'denied', 'ops', 'webhook');
  });

  it('refuses an oversized callback while it streams in, chunked or declared, before any signature check', async () => {
    const s = await gateway();
    answer = (_r, res) => json(res, 202);
    const { outcome, created } = request(s);
    const { id } = await created;
    const url = new URL(`${s.url}/approvals/${id}`);
    // Chunked: no Content-Length to refuse up front. The client offers 8 MiB in 64 KiB pieces
    // and stops once the answer comes; the gateway must answer 413 long before the end.
    const chunked = await new Promise<{ status: number; body: string; sent: number; connection: string | undefined }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: 'nonsense' } }, (res) => {
        answered = true;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent, connection: res.headers.connection }));
      });
      req.on('error', (e) => (answered ? undefined : reject(e)));
      const piece = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (!answered && sent < 8 * 1024 * 1024) {
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: 'too_large', message: /over 65536 bytes/ });
    expect(chunked.connection).toBe('close');
    expect(chunked.sent).toBeLessThan(8 * 1024 * 1024);

    const declared = await fetch(url, { method: 'POST', headers: { [SIGNATURE_HEADER]: 'nonsense' }, body: 'x'.repeat(64 * 1024 + 1) });
    expect(declared.status).toBe(413);
    // Nothing was decided, and a proper callback still is.
    expect((await s.service.get(id))?.outcome).toBeUndefined();
    expect((await callback(s, id, { id, decision: 'approve', by: 'ops' })).status).toBe(200);
    expect(await outcome).toMatchObject({ decision: 'approved' });
  });

  it('no decision in time: the call fails closed as expired, and a late callback is told so', async () => {
    const s = await gateway();
    answer = (_r, res) => json(res, 202);
    const { outcome, created } = request(s, undefined, 300);
    const { id } = await created;
    expect(await outcome).toMatchObject({ decision: 'expired', by: 'gatehouse' });
    expect(await callback(s, id, { id, decision: 'approve' })).toMatchObject({ status: 409, body: { outcome: { decision: 'expired' } } });
  });

  it('a webhook that keeps failing is retried with backoff, then the call fails closed', async () => {
    const waits: number[] = [];
    const s = await gateway({ retries: 2, sleep: async (ms) => void waits.push(ms) });
    answer = (_r, res) => json(res, 503, { error: 'down' });
    const { outcome } = request(s);
    expect(await outcome).toMatchObject({ decision: 'denied', by: 'gatehouse', reason: 'webhook delivery failed: the webhook answered HTTP 503' });
    expect(received).toHaveLength(3);
    // 0.5 s then 1 s between attempts; every attempt is signed afresh for the same approval.
    expect(waits).toEqual([500, 1000]);
    expect(new Set(received.map((r) => r.body['id'])).size).toBe(1);
    for (const r of received) expect(verifySignature(SECRET, r.headers['gatehouse-signature'] as string, r.raw, Date.now() / 1000).ok).toBe(true);
    expect(s.events.at(-1)).toMatchObject({ event: 'approval_decided', detail: { decision: 'denied', by: 'gatehouse' } });
  });

  it('a client error is not retried; an unreachable webhook fails closed', async () => {
    const s = await gateway({ retries: 2 });
    answer = (_r, res) => json(res, 400, { error: 'bad' });
    expect(await request(s).outcome).toMatchObject({ decision: 'denied', reason: /HTTP 400/ });
    expect(received).toHaveLength(1);

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/hook`;
    await new Promise((r) => closed.close(r));
    const dead = await gateway({ url: deadUrl, retries: 1 });
    expect(await request(dead).outcome).toMatchObject({ decision: 'denied', reason: /webhook delivery failed: delivery error/ });
  });

  it('an invalid decision in the response fails closed rather than being guessed', async () => {
    const s = await gateway();
    answer = (_r, res) => json(res, 200, { decision: 'approved' });
    expect(await request(s).outcome).toMatchObject({ decision: 'denied', reason: /decision is invalid/ });
  });
});
