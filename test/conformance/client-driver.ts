// The client under test in the suite's client mode (`conformance client --command ...`): the
// suite appends its scenario server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO.
// `direct` drives that server with an official SDK client; `gatehouse` starts Gatehouse in
// this process with the scenario server as its one upstream (`prefix: ""`) and drives
// Gatehouse with the same client, so what the scenario server judges is Gatehouse's own
// client side. The calls are the same either way: list everything, call every tool (with
// the scenario's arguments from MCP_CONFORMANCE_CONTEXT when it gives some), read every
// resource, get every prompt. 2025-11-25 scenarios use SDK 1.x, 2026-07-28 ones SDK 2.x.
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestGateway } from '../harness/gateway.ts';
import { connectLegacyClient, connectModernClient } from '../fixtures/clients.ts';
import { LEGACY_SCENARIOS } from './client-driver-scenarios.ts';
import { upstreamsUp } from './upstreams-up.ts';

interface Surface {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(p: { uri: string }): Promise<unknown>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<unknown>;
  close(): Promise<void>;
}

/** Each step may fail (a scenario may answer an error on purpose); the next still runs. */
async function attempt<T>(step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch (e) {
    process.stderr.write(`step failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return undefined;
  }
}

/** Arguments that satisfy a tool's inputSchema at its simplest: every required property
 * with a value of its type (Gatehouse checks arguments against the schema by default). */
function sampleArguments(schema: unknown): Record<string, unknown> {
  const s = (schema ?? {}) as { properties?: Record<string, { type?: string; enum?: unknown[]; const?: unknown }>; required?: string[] };
  const out: Record<string, unknown> = {};
  for (const name of s.required ?? []) {
    const p = s.properties?.[name] ?? {};
    const byType: Record<string, unknown> = { string: 'us-west1', integer: 1, number: 1, boolean: true, object: {}, array: [] };
    out[name] = p.const ?? p.enum?.[0] ?? byType[p.type ?? 'string'] ?? 'x';
  }
  return out;
}

async function exercise(client: Surface, toolCalls: { name: string; arguments?: Record<string, unknown> }[]): Promise<void> {
  const tools = ((await attempt(() => client.listTools()))?.tools ?? []) as { name: string; inputSchema?: unknown }[];
  const calls = toolCalls.length > 0 ? toolCalls : tools.map((t) => ({ name: t.name, arguments: sampleArguments(t.inputSchema) }));
  for (const c of calls) await attempt(() => client.callTool({ name: c.name, arguments: c.arguments ?? {} }));
  for (const r of (await attempt(() => client.listResources()))?.resources ?? []) await attempt(() => client.readResource({ uri: r.uri }));
  for (const p of (await attempt(() => client.listPrompts()))?.prompts ?? []) await attempt(() => client.getPrompt({ name: p.name, arguments: {} }));
}

async function connect(url: string, scenario: string): Promise<Surface> {
  if (!LEGACY_SCENARIOS.has(scenario)) return (await connectModernClient(url, { name: 'gatehouse-conformance-client' })) as unknown as Surface;
  const client = await connectLegacyClient(url, { name: 'gatehouse-conformance-client', capabilities: { elicitation: { form: { applyDefaults: true } } } });
  // Accept with no fields: the SDK fills in the schema's defaults (applyDefaults).
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
  return client as unknown as Surface;
}

async function main(): Promise<void> {
  const [mode, serverUrl] = process.argv.slice(2);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  if ((mode !== 'direct' && mode !== 'gatehouse') || !serverUrl) throw new Error('usage: client-driver.ts direct|gatehouse <server-url>');
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as { toolCalls?: { name: string; arguments?: Record<string, unknown> }[] };
  // http-custom-headers sends `verbose: null` for a boolean parameter to see the header
  // omitted; Gatehouse's argument validation (on by default) refuses that call as its schema
  // says, before any header is built. This scenario measures header mirroring, so here the
  // validation is off.
  const validation = scenario === 'http-custom-headers' ? 'validation: { arguments: false }\n' : '';
  // elicitation-sep1034-client-defaults asks its client outside any call (server.request, so on
  // the session's GET stream). Only an upstream session per client session can tell which
  // client that is: the upstream option for servers that do this (README, Protocol eras).
  const session = scenario === 'elicitation-sep1034-client-defaults' ? ', session: perClient' : '';
  const gw = mode === 'gatehouse' ? await startTestGateway(`${validation}upstreams:\n  - { name: up, url: "${serverUrl}", prefix: ""${session} }\n`) : undefined;
  try {
    if (gw) await attempt(() => upstreamsUp(gw.upstreams, 5000));
    const client = await connect(gw ? gw.url : serverUrl, scenario);
    await exercise(client, context.toolCalls ?? []);
    await attempt(() => client.close());
  } finally {
    await gw?.close();
  }
}

await main();
