// Attribute keys for MCP spans. The MCP and GenAI keys follow the OpenTelemetry semantic
// conventions for MCP (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md, status
// Development). They are copied here rather than imported from
// `@opentelemetry/semantic-conventions/incubating`, because that entry point may break in a
// minor release and already marks these keys deprecated (moved to the GenAI repository);
// the package's README recommends copying incubating keys. Stable keys (error.type,
// network.*, server.*, client.*) come from the package itself, at the call sites.
// Keys under `gatehouse.` are our own: the conventions have no place for a gateway's
// policy decision or upstream name.

export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** The MCP conventions name this key for the JSON-RPC error code (string). Semantic
 * conventions 1.45 renamed the generic RPC key to `rpc.status_code`; the MCP document still
 * says `rpc.response.status_code`, and the MCP document is what we follow. */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';

/** `gen_ai.operation.name` for `tools/call`, and only for it (mcp.md note [6]). */
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
/** `error.type` when a tool call succeeds at JSON-RPC level with `isError: true` (note [1]). */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error';

export const ATTR_GATEHOUSE_ERA = 'gatehouse.era';
export const ATTR_GATEHOUSE_UPSTREAM = 'gatehouse.upstream';
export const ATTR_GATEHOUSE_SERVER = 'gatehouse.server';
export const ATTR_GATEHOUSE_CREDENTIAL = 'gatehouse.upstream.credential';
export const ATTR_GATEHOUSE_OUTCOME = 'gatehouse.outcome';
export const ATTR_GATEHOUSE_DECISION = 'gatehouse.policy.decision';
export const ATTR_GATEHOUSE_RULE_ID = 'gatehouse.policy.rule_id';
export const ATTR_GATEHOUSE_APPROVAL_ID = 'gatehouse.approval.id';
export const ATTR_GATEHOUSE_REQUEST_ID = 'gatehouse.request.id';

export const METHOD_TOOLS_CALL = 'tools/call';
export const METHOD_PROMPTS_GET = 'prompts/get';

/** Span name `{mcp.method.name} {target}`, target being the tool or prompt name when there
 * is one; never a resource URI (high cardinality, mcp.md "Span name"). */
export function mcpSpanName(method: string, target: string | undefined): string {
  return target ? `${method} ${target}` : method;
}
