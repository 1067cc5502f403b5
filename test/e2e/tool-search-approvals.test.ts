// gatehouse__call_tool through approvals and header routing, end to end: a routed upstream
// (`sql`, two real SDK 2.x servers chosen by the Region x-mcp-header) whose query tool needs
// the calling user's approval. A modern client approves through MRTR, a legacy one through
// elicitation/create; the approval names the real tool, only the chosen target is called,
// with the real tool's name and Mcp-Param-* headers, and the audit records say so.
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { startModernUpstream, type ModernUpstream, type ReceivedRequest } from '../fixtures/modern-upstream.ts';
import { auditRequests, startTestGateway, type TestGateway } from '../harness/gateway.ts';
import { ALICE, IDENTITY_YAML, policyDir } from '../harness/policy-env.ts';

const POLICY = `
rules:
  - { id: queries-need-ok, effect: approve, when: { tool: sql__query }, approval: { approver: user } }
  - { id: the-rest, effect: allow, when: { tool: "*" } }
`;

let us: ModernUpstream;
let eu: ModernUpstream;
let gw: TestGateway;

beforeAll(async () => {
  [us, eu] = await Promise.all([startModernUpstream({ name: 'us' }), startModernUpstream({ name: 'eu' })]);
  gw = await startTestGateway(`
${IDENTITY_YAML}
policy: { dir: "${policyDir({ 'rules.yaml': POLICY })}", watch: false }
toolSearch: { enabled: true }
upstreams:
  - name: sql
    route:
      by: region
      targets: { "us-*": "${us.url}", "eu-*": "${eu.url}" }
`);
  await gw.waitUp();
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([us?.close(), eu?.close()]);
});

const callsWith = (u: ModernUpstream, query: string): ReceivedRequest[] =>
  u.received.filter((r) => {
    const body = r.body as { method?: string; params?: { arguments?: { query?: unknown } } };
    return body.method === 'tools/call' && body.params?.arguments?.query === query;
  });

interface Approving {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<{ content?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}

const CLIENTS: { era: string; connect: (decision: 'approve' | 'decline', asked: string[]) => Promise<Approving> }[] = [
  {
    era: 'modern (2.x, MRTR)',
    async connect(decision, asked) {
      const c = await connectModernClient(gw.url, { headers: ALICE, capabilities: { elicitation: { form: {} } } });
      c.setRequestHandler('elicitation/create', async (req: { params: { message: string } }) => {
        asked.push(req.params.message);
        return { action: 'accept', content: { decision } };
      });
      return c as unknown as Approving;
    },
  },
  {
    era: 'legacy (1.x, elicitation/create)',
    async connect(decision, asked) {
      const c = await connectLegacyClient(gw.url, { headers: ALICE, capabilities: { elicitation: {} } });
      c.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message);
        return { action: 'accept', content: { decision } };
      });
      return c as unknown as Approving;
    },
  },
];

describe.each(CLIENTS)('$era client calling through gatehouse__call_tool', ({ era, connect }) => {
  let n = 0;
  const nextQuery = () => `${era.split(' ')[0]}-${++n}`;

  it('asks for approval of the real tool, then calls only the routed target with its own headers', async () => {
    const asked: string[] = [];
    const client = await connect('approve', asked);
    try {
      const query = nextQuery();
      const r = await client.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'sql__query', arguments: { region: 'eu-west', query, limit: 3 } } });
      expect((r.content as { text: string }[])[0]!.text).toBe(`eu-west:${query}:3`);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('Tool: sql__query');
      expect(asked[0]).toContain('"region": "eu-west"');
      expect(callsWith(us, query)).toEqual([]);
      const [sent, ...more] = callsWith(eu, query);
      expect(more).toEqual([]);
      expect(sent!.headers).toMatchObject({ 'mcp-name': 'query', 'mcp-param-region': 'eu-west', 'mcp-param-limit': '3' });
      await expect.poll(() => auditRequests(gw).filter((rec) => rec.name === 'sql__query' && rec.approval?.decision === 'approved').length).toBeGreaterThanOrEqual(n);
      const rec = auditRequests(gw).filter((x) => x.name === 'sql__query' && x.approval?.decision === 'approved').at(-1)!;
      expect(rec).toMatchObject({ via: 'gatehouse__call_tool', upstream: 'sql', upstreamName: 'query', decision: { effect: 'approve', ruleId: 'queries-need-ok' }, params: { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Limit': 3 } });
    } finally {
      await client.close();
    }
  });

  it('sends nothing when the user declines, and says so in the result', async () => {
    const client = await connect('decline', []);
    try {
      const query = nextQuery();
      const r = await client.callTool({ name: 'gatehouse__call_tool', arguments: { name: 'sql__query', arguments: { region: 'us-east', query } } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain('declined');
      expect([...callsWith(us, query), ...callsWith(eu, query)]).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
