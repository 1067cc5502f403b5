// The SERVER span of one MCP request through the gateway, with the attributes of the
// OpenTelemetry MCP conventions (mcp-semconv.ts) and the gateway's own (upstream, policy
// decision, outcome). Parent choice follows those conventions ("Context propagation"): the
// MCP-level context in `params._meta` is the parent; the HTTP `traceparent` is the parent
// when `_meta` has none, and a span link when both are present and differ (MCP and
// transport contexts are independent: one HTTP request may carry an MCP retry, and so on).
// With tracing off, `tracer` is undefined and no span is built: the request "span" is the
// incoming context itself, so upstream propagation passes the client's trace through
// unchanged, at the cost of one `traceparent` parse.
import { hash } from 'node:crypto';
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanKind, trace, type Attributes, type Link, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_CLIENT_PORT,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
} from '@opentelemetry/semantic-conventions';
import type { JsonObject, RequestId } from '../protocol/message.ts';
import type { Era } from '../protocol/versions.ts';
import * as sc from './mcp-semconv.ts';
import { McpSpan, setIf, setTargetAttributes, targetName, type McpTransport, type SpanTarget, type TracedSpan } from './mcp-span.ts';
import { contextFromHeaders, contextFromMeta, type HeaderSource } from './trace-context.ts';
import { startUpstreamSpan, type UpstreamSpan, type UpstreamSpanInput } from './upstream-span.ts';

export interface RequestSpanInput {
  method: string;
  era: Era;
  /** Inbound HTTP headers (`traceparent`, `tracestate`). */
  headers: HeaderSource;
  /** `params._meta` of the request, if any. */
  meta?: JsonObject;
  /** Tool (exposed name), prompt or resource, when already known. */
  target?: SpanTarget;
  /** The JSON-RPC id; left out for notifications. */
  rpcId?: RequestId | null;
  protocolVersion?: string;
  /** Legacy `Mcp-Session-Id`. Recorded as a SHA-256 prefix: the gateway's session id is
   * sealed session state and must not reach a trace backend as is. */
  sessionId?: string;
  /** The gateway's own request id, shared with the audit record. */
  requestId?: string;
  /** The virtual server the request came to; undefined: the default endpoint. */
  server?: string;
  transport?: McpTransport;
  /** HTTP version of the inbound request, e.g. `1.1` or `2`. */
  httpVersion?: string;
  clientAddress?: string;
  clientPort?: number;
  /** Epoch milliseconds (or `performance.now()`); defaults to now. */
  startTime?: number;
}

export interface PolicyDecisionFields {
  effect: string;
  ruleId?: string;
  approvalId?: string;
}

export interface RequestSpan extends TracedSpan {
  /** Records the tool/prompt/resource and renames the span `{method} {tool|prompt}`. */
  setTarget(target: SpanTarget): void;
  setUpstream(upstream: string): void;
  setDecision(decision: PolicyDecisionFields): void;
  /** A CLIENT child span for one upstream call; see upstream-span.ts. */
  startUpstreamSpan(input: UpstreamSpanInput): UpstreamSpan;
}

export function startRequestSpan(tracer: Tracer | undefined, input: RequestSpanInput): RequestSpan {
  const fromMeta = contextFromMeta(input.meta);
  const fromHeaders = contextFromHeaders(input.headers);
  const parent = fromMeta ?? fromHeaders;
  if (tracer === undefined) return parent === undefined ? UNTRACED : new McpRequestSpan(undefined, trace.wrapSpanContext(parent), input.method);

  const links: Link[] = fromMeta && fromHeaders && fromHeaders.spanId !== fromMeta.spanId ? [{ context: fromHeaders }] : [];
  const attributes: Attributes = {
    [sc.ATTR_MCP_METHOD_NAME]: input.method,
    [sc.ATTR_GATEHOUSE_ERA]: input.era,
    [ATTR_NETWORK_TRANSPORT]: input.transport === 'stdio' ? 'pipe' : 'tcp',
  };
  if (input.transport !== 'stdio') attributes[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  if (input.method === sc.METHOD_TOOLS_CALL) attributes[sc.ATTR_GEN_AI_OPERATION_NAME] = sc.GEN_AI_OPERATION_EXECUTE_TOOL;
  // MCP conventions note [2]: no jsonrpc.request.id for a null or missing id.
  if (input.rpcId !== undefined && input.rpcId !== null) attributes[sc.ATTR_JSONRPC_REQUEST_ID] = String(input.rpcId);
  setIf(attributes, sc.ATTR_MCP_PROTOCOL_VERSION, input.protocolVersion);
  if (input.sessionId) attributes[sc.ATTR_MCP_SESSION_ID] = sessionDigest(input.sessionId);
  setIf(attributes, sc.ATTR_GATEHOUSE_REQUEST_ID, input.requestId);
  setIf(attributes, sc.ATTR_GATEHOUSE_SERVER, input.server);
  setIf(attributes, ATTR_NETWORK_PROTOCOL_VERSION, input.httpVersion);
  setIf(attributes, ATTR_CLIENT_ADDRESS, input.clientAddress);
  setIf(attributes, ATTR_CLIENT_PORT, input.clientPort);
  if (input.target) setTargetAttributes(attributes, input.method, input.target);

  const name = sc.mcpSpanName(input.method, input.target && targetName(input.method, input.target));
  const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, links, startTime: input.startTime }, ctx);
  return new McpRequestSpan(tracer, span, input.method);
}

class McpRequestSpan extends McpSpan implements RequestSpan {
  constructor(
    private readonly tracer: Tracer | undefined,
    span: Span,
    private readonly method: string,
  ) {
    super(span, tracer !== undefined && span.isRecording());
  }

  setTarget(target: SpanTarget): void {
    if (!this.recording) return;
    const attributes: Attributes = {};
    setTargetAttributes(attributes, this.method, target);
    this.span.setAttributes(attributes);
    const name = targetName(this.method, target);
    if (name !== undefined) this.span.updateName(sc.mcpSpanName(this.method, name));
  }

  setUpstream(upstream: string): void {
    if (this.recording) this.span.setAttribute(sc.ATTR_GATEHOUSE_UPSTREAM, upstream);
  }

  setDecision(decision: PolicyDecisionFields): void {
    if (!this.recording) return;
    const attributes: Attributes = { [sc.ATTR_GATEHOUSE_DECISION]: decision.effect };
    setIf(attributes, sc.ATTR_GATEHOUSE_RULE_ID, decision.ruleId);
    setIf(attributes, sc.ATTR_GATEHOUSE_APPROVAL_ID, decision.approvalId);
    this.span.setAttributes(attributes);
  }

  startUpstreamSpan(input: UpstreamSpanInput): UpstreamSpan {
    return startUpstreamSpan(this.tracer, this.span, input);
  }
}

/** The span of a request with no tracing and no trace to carry on: it records nothing and
 * propagates nothing (no valid context), and every method of it is a no-op, so one serves every
 * such request instead of two objects made per request. */
const UNTRACED: RequestSpan = new McpRequestSpan(undefined, trace.wrapSpanContext(INVALID_SPAN_CONTEXT), '');

function sessionDigest(sessionId: string): string {
  return hash('sha256', sessionId, 'hex').slice(0, 32);
}
