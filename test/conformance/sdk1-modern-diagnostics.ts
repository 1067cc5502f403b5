// The 2026-07-28 suite's diagnostic tools (server-stateless, http-custom-header-server-validation)
// written the 2025-11-25 way, for the SDK 1.x fixture: a legacy server asks the client with
// requests on the call's stream and logs with notifications, so the 2026-07-28 row through
// Gatehouse shows what the gateway bridges (requests become input_required, logs go only to
// requests that set a logLevel, Mcp-Param-* headers are checked by the gateway from the
// tool's x-mcp-header annotations). Not used by any 2025-11-25 scenario.
import { McpError, CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as content from './fixture-content.ts';

type Extra = {
  sendRequest: (r: never, schema: never) => Promise<unknown>;
  sendNotification: (n: never) => Promise<void>;
};
type ToolResult = { content: { type: 'text'; text: string }[] };

const text = (value: string) => ({ type: 'text' as const, text: value });

export const MODERN_DIAGNOSTIC_TOOLS = [
  { name: 'test_logging_tool', description: 'Logs at info level (no message without a logLevel)', inputSchema: content.NO_INPUT },
  { name: 'test_missing_capability', description: 'Needs the client to declare sampling', inputSchema: content.NO_INPUT },
  { name: 'test_streaming_elicitation', description: 'Asks the user for input on the call stream', inputSchema: content.NO_INPUT },
  { name: 'test_unrelated_elicitation', description: 'Asks the user outside the call (on the GET stream); returns the answer or the error code', inputSchema: content.NO_INPUT },
  {
    name: 'test_region_query',
    description: 'Runs a query in a region (x-mcp-header)',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } }, required: ['region'] },
  },
];

/** The tool's result, or undefined when `name` is none of these. */
export async function callModernDiagnostic(name: string, args: Record<string, unknown>, extra: Extra, server: Server): Promise<ToolResult | undefined> {
  switch (name) {
    case 'test_logging_tool':
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'a log message' } } as never);
      return { content: [text('logged')] };
    case 'test_missing_capability':
      try {
        await extra.sendRequest({ method: 'sampling/createMessage', params: content.samplingRequest('Say hello') } as never, CreateMessageResultSchema as never);
        return { content: [text('sampling answered')] };
      } catch (e) {
        // The client cannot sample (its gateway answered -32601): the capability is required.
        if ((e as { code?: unknown }).code === -32601) throw new McpError(-32021, 'Missing required client capability: sampling', { requiredCapabilities: { sampling: {} } });
        throw e;
      }
    case 'test_streaming_elicitation':
      await extra.sendRequest({ method: 'elicitation/create', params: content.elicitationRequest('Who are you?') } as never, ElicitResultSchema as never);
      return { content: [text('thanks')] };
    case 'test_unrelated_elicitation':
      // server.request, not extra.sendRequest: related to no request, so the SDK sends it on the GET stream.
      try {
        const answer = await server.request({ method: 'elicitation/create', params: content.elicitationRequest('Unrelated?') } as never, ElicitResultSchema, { timeout: 10_000 });
        return { content: [text(`answered ${answer.action}`)] };
      } catch (e) {
        return { content: [text(`error ${String((e as { code?: unknown }).code)}`)] };
      }
    case 'test_region_query':
      return { content: [text(`${String(args.region)}: ${String(args.query ?? '')}`)] };
    default:
      return undefined;
  }
}
