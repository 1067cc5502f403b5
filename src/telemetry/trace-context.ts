// W3C Trace Context in and out of the two carriers MCP has: HTTP headers, and the request's
// `params._meta` (MCP 2026-07-28, basic/index (request _meta): `traceparent`/`tracestate`/`baggage` are reserved
// unprefixed `_meta` keys; OpenTelemetry MCP conventions, "Context propagation").
// No global propagator is registered: the W3C propagator is used directly, so nothing here
// depends on process-wide OpenTelemetry state. Baggage is neither read nor written: it is
// the client's, and the gateway does not vouch for it (it rides along in `_meta` only if the
// pipeline forwards `_meta`).
import {
  ROOT_CONTEXT,
  isSpanContextValid,
  trace,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { TRACE_PARENT_HEADER, TRACE_STATE_HEADER, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { HeaderLookup } from '../headers/param-headers.ts';
import type { JsonObject } from '../protocol/message.ts';

/** Either the pipeline's header lookup function or a WHATWG `Headers`-like object. */
export type HeaderSource = HeaderLookup | { get(name: string): string | null | undefined };

/** The two W3C fields, as they go into a header set or a `_meta` object. */
export interface TraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** One propagation, written twice: upstream HTTP headers and the upstream request's `_meta`. */
export interface TraceCarriers {
  headers: TraceFields;
  meta: TraceFields;
}

// Stateless; one instance is shared the way a constant is.
const W3C = new W3CTraceContextPropagator();

const HEADER_GETTER: TextMapGetter<HeaderSource> = {
  get: (carrier, key) => (typeof carrier === 'function' ? carrier(key) : (carrier.get(key) ?? undefined)),
  keys: () => [],
};

const META_GETTER: TextMapGetter<JsonObject> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};

const FIELDS_SETTER: TextMapSetter<TraceFields> = {
  set: (carrier, key, value) => {
    if (key === TRACE_PARENT_HEADER) carrier.traceparent = value;
    else if (key === TRACE_STATE_HEADER) carrier.tracestate = value;
  },
};

/** The remote span context in `traceparent`/`tracestate` headers, if valid. */
export function contextFromHeaders(headers: HeaderSource): SpanContext | undefined {
  if (HEADER_GETTER.get(headers, TRACE_PARENT_HEADER) === undefined) return undefined;
  return validContext(W3C.extract(ROOT_CONTEXT, headers, HEADER_GETTER));
}

/** The remote span context in `_meta.traceparent`/`_meta.tracestate`, if valid. */
export function contextFromMeta(meta: JsonObject | undefined): SpanContext | undefined {
  if (meta === undefined || typeof meta[TRACE_PARENT_HEADER] !== 'string') return undefined;
  return validContext(W3C.extract(ROOT_CONTEXT, meta, META_GETTER));
}

/** `traceparent`/`tracestate` naming `span` as the parent; empty when it has no valid
 * context (tracing off and nothing came in). */
export function traceFieldsOf(span: Span): TraceFields {
  const fields: TraceFields = {};
  W3C.inject(trace.setSpan(ROOT_CONTEXT, span), fields, FIELDS_SETTER);
  return fields;
}

function validContext(ctx: Parameters<typeof trace.getSpanContext>[0]): SpanContext | undefined {
  const sc = trace.getSpanContext(ctx);
  return sc !== undefined && isSpanContextValid(sc) ? sc : undefined;
}
