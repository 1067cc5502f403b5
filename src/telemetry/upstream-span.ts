// The CLIENT span of one call from the gateway to an upstream, child of the request span,
// and the propagation of its context to the upstream in both carriers: the HTTP headers and
// the upstream request's `params._meta` (MCP 2026-07-28, basic/index (request _meta); OpenTelemetry MCP conventions,
// "Context propagation"). The upstream sees this span as its parent, so one trace runs
// client -> gateway -> upstream.
import { ROOT_CONTEXT, SpanKind, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { RequestId } from '../protocol/message.ts';
import * as sc from './mcp-semconv.ts';
import { McpSpan, setIf, setTargetAttributes, targetName, type McpTransport, type SpanTarget, type TracedSpan } from './mcp-span.ts';
import { traceFieldsOf, type TraceCarriers, type TraceFields } from './trace-context.ts';

export interface UpstreamSpanInput {
  upstream: string;
  method: string;
  /** The upstream's own tool or prompt name (without the gateway's prefix). */
  name?: string;
  resourceUri?: string;
  protocolVersion?: string;
  transport?: McpTransport;
  serverAddress?: string;
  serverPort?: number;
  /** The JSON-RPC id of the upstream request. */
  rpcId?: RequestId;
  /** The kind of credential sent (user, exchange, service, none), never its value. */
  credential?: string;
}

export interface UpstreamSpan extends TracedSpan {
  /** `traceparent`/`tracestate` naming this span as the upstream's parent: put `headers` on
   * the upstream HTTP request and merge `meta` over the upstream request's `params._meta`
   * (replacing the client's keys). Both are empty when there is no trace to continue. */
  inject(): TraceCarriers;
}

/** `tracer` undefined (tracing off): no span; the parent's context, usually the client's
 * own, is what gets propagated, so the gateway is transparent to the trace. */
export function startUpstreamSpan(tracer: Tracer | undefined, parent: Span, input: UpstreamSpanInput): UpstreamSpan {
  if (tracer === undefined) return new McpUpstreamSpan(trace.wrapSpanContext(parent.spanContext()), false);
  const attributes: Attributes = {
    [sc.ATTR_MCP_METHOD_NAME]: input.method,
    [sc.ATTR_GATEHOUSE_UPSTREAM]: input.upstream,
    [ATTR_NETWORK_TRANSPORT]: input.transport === 'stdio' ? 'pipe' : 'tcp',
  };
  if (input.transport !== 'stdio') attributes[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  if (input.method === sc.METHOD_TOOLS_CALL) attributes[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_EXECUTE_TOOL;
  const target: SpanTarget = { tool: input.name, prompt: input.name, resourceUri: input.resourceUri };
  setTargetAttributes(attributes, input.method, target);
  setIf(attributes, sc.ATTR_MCP_PROTOCOL_VERSION, input.protocolVersion);
  setIf(attributes, ATTR_SERVER_ADDRESS, input.serverAddress);
  setIf(attributes, ATTR_SERVER_PORT, input.serverPort);
  setIf(attributes, sc.ATTR_GATEHOUSE_CREDENTIAL, input.credential);
  if (input.rpcId !== undefined) attributes[sc.ATTR_JSONRPC_REQUEST_ID] = String(input.rpcId);
  const span = tracer.startSpan(
    sc.mcpSpanName(input.method, targetName(input.method, target)),
    { kind: SpanKind.CLIENT, attributes },
    trace.setSpan(ROOT_CONTEXT, parent),
  );
  return new McpUpstreamSpan(span, span.isRecording());
}

class McpUpstreamSpan extends McpSpan implements UpstreamSpan {
  private fields: TraceFields | undefined;

  inject(): TraceCarriers {
    this.fields ??= traceFieldsOf(this.span);
    // Fresh objects each time: callers merge them into headers and `_meta` they own.
    return { headers: { ...this.fields }, meta: { ...this.fields } };
  }
}
