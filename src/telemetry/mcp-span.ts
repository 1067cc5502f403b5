// What the gateway's request span and its upstream spans share: ids for correlation, error
// events, and the end of the span, where the outcome becomes `error.type`, the JSON-RPC code
// and the span status (OpenTelemetry MCP conventions, "Span status" and `error.type` note
// [1]). Also the attribute helpers both span kinds use.
import { SpanStatusCode, isSpanContextValid, type Attributes, type Span } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import * as sc from './mcp-semconv.ts';
import type { RequestOutcome } from './request-outcome.ts';
import { statusDescription } from './status-description.ts';

export type McpTransport = 'http' | 'stdio';

/** What a request names, once known. */
export interface SpanTarget {
  /** Tool name: the exposed (prefixed) one on the request span, the upstream's own upstream. */
  tool?: string;
  prompt?: string;
  resourceUri?: string;
}

export interface SpanResult {
  outcome: RequestOutcome;
  /** The JSON-RPC error code of the response, if it is an error. */
  errorCode?: number;
  /** The JSON-RPC error message; becomes the span status description, its quoted values masked. */
  errorMessage?: string;
  /** Epoch milliseconds (or `performance.now()`); defaults to now. */
  endTime?: number;
}

export interface TracedSpan {
  /** 32 hex digits; undefined when tracing is off and no trace context came in. */
  readonly traceId: string | undefined;
  readonly spanId: string | undefined;
  /** True when this span is being recorded for export. */
  readonly recording: boolean;
  /** Adds an exception event. The span status is set by `end()`, from the outcome. */
  recordError(error: unknown): void;
  /** Idempotent: a second call does nothing. */
  end(result: SpanResult): void;
}

export class McpSpan implements TracedSpan {
  private ended = false;
  private errorName: string | undefined;

  constructor(
    protected readonly span: Span,
    readonly recording: boolean,
  ) {}

  get traceId(): string | undefined {
    const ctx = this.span.spanContext();
    return isSpanContextValid(ctx) ? ctx.traceId : undefined;
  }

  get spanId(): string | undefined {
    const ctx = this.span.spanContext();
    return isSpanContextValid(ctx) ? ctx.spanId : undefined;
  }

  recordError(error: unknown): void {
    if (!this.recording) return;
    const e = error instanceof Error ? error : new Error(String(error));
    this.errorName = e.name;
    this.span.recordException(e);
  }

  end(result: SpanResult): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.recording) return;
    const span = this.span;
    span.setAttribute(sc.ATTR_GATEHOUSE_OUTCOME, result.outcome);
    if (result.errorCode !== undefined) span.setAttribute(sc.ATTR_RPC_RESPONSE_STATUS_CODE, String(result.errorCode));
    const errorType = this.errorTypeOf(result);
    if (errorType !== undefined) {
      // ERROR exactly when error.type is set, described by the JSON-RPC error message
      // without the values it quotes (status-description.ts).
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: statusDescription(result.errorMessage) });
    }
    span.end(result.endTime);
  }

  /** The JSON-RPC code when there is one; `tool_error` for `isError` results; the outcome
   * for other refusals; the recorded exception's name (or `_OTHER`) for internal errors. */
  private errorTypeOf(result: SpanResult): string | undefined {
    if (result.errorCode !== undefined) return String(result.errorCode);
    switch (result.outcome) {
      case 'ok':
      case 'approval_required':
        return undefined;
      case 'error':
        return this.errorName ?? '_OTHER';
      case 'tool_error':
        return sc.ERROR_TYPE_TOOL_ERROR;
      default:
        return result.outcome;
    }
  }
}

/** The low-cardinality span-name target: the tool of a tools/call, the prompt of a prompts/get. */
export function targetName(method: string, target: SpanTarget): string | undefined {
  if (method === sc.METHOD_TOOLS_CALL) return target.tool;
  if (method === sc.METHOD_PROMPTS_GET) return target.prompt;
  return undefined;
}

/** gen_ai.tool.name only on tools/call, gen_ai.prompt.name only on prompts/get. */
export function setTargetAttributes(attributes: Attributes, method: string, target: SpanTarget): void {
  if (method === sc.METHOD_TOOLS_CALL) setIf(attributes, sc.ATTR_GEN_AI_TOOL_NAME, target.tool);
  else if (method === sc.METHOD_PROMPTS_GET) setIf(attributes, sc.ATTR_GEN_AI_PROMPT_NAME, target.prompt);
  setIf(attributes, sc.ATTR_MCP_RESOURCE_URI, target.resourceUri);
}

export function setIf(attributes: Attributes, key: string, value: string | number | undefined): void {
  if (value !== undefined && value !== '') attributes[key] = value;
}
