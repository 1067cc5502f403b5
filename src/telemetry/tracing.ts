// Tracing for the gateway: a tracer provider that exports over OTLP/HTTP when the standard
// OTEL_* variables ask for it (otel-env.ts), and no tracer at all otherwise. Nothing is
// registered globally (no global tracer provider, context manager or propagator): the
// pipeline holds the `Tracing` it was given and passes spans explicitly, so two gateways in
// one process (tests) do not share state. W3C propagation is done by trace-context.ts.
// Built on @opentelemetry/sdk-trace, the environment-free core that sdk-trace-base 2.x now
// re-exports: configuration comes from the `env` passed in, not from process.env.
import type { Tracer } from '@opentelemetry/api';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from './logger.ts';
import { readTracingSettings, type EnvSource, type SamplerSettings } from './otel-env.ts';
import { startRequestSpan, type RequestSpan, type RequestSpanInput } from './request-span.ts';
import { createSpanExporter, redactUrl } from './span-exporter.ts';

// The pipeline's whole tracing vocabulary, importable from this one module.
export type { McpTransport, SpanResult, SpanTarget } from './mcp-span.ts';
export type { PolicyDecisionFields, RequestSpan, RequestSpanInput } from './request-span.ts';
export type { HeaderSource, TraceCarriers, TraceFields } from './trace-context.ts';
export type { UpstreamSpan, UpstreamSpanInput } from './upstream-span.ts';

export interface TracingOptions {
  /** Usually `process.env`; only the OTEL_* keys are read. */
  env: EnvSource;
  /** `service.name` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names one. */
  serviceName: string;
  serviceVersion?: string;
  logger: Logger;
}

export interface Tracing {
  /** True when spans are recorded and exported; false means every span is a no-op. */
  readonly exporting: boolean;
  /** Starts the SERVER span of one MCP request; see request-span.ts. */
  startRequestSpan(input: RequestSpanInput): RequestSpan;
  /** Exports the spans buffered so far. */
  forceFlush(): Promise<void>;
  /** Flushes, then stops exporting. Spans started afterwards are dropped. */
  shutdown(): Promise<void>;
}

export const TRACER_NAME = 'gatehouse';

export function createTracing(opts: TracingOptions): Tracing {
  const settings = readTracingSettings(opts.env, opts.serviceName);
  for (const warning of settings.warnings) opts.logger.warn('tracing configuration ignored', { detail: warning });
  const exportSettings = settings.export;
  if (exportSettings === undefined) {
    opts.logger.debug('tracing off: no OTLP traces endpoint or exporter configured');
    return {
      exporting: false,
      startRequestSpan: (input) => startRequestSpan(undefined, input),
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
  }

  const attributes: Record<string, string> = { ...settings.resourceAttributes, [ATTR_SERVICE_NAME]: settings.serviceName };
  if (opts.serviceVersion !== undefined && attributes[ATTR_SERVICE_VERSION] === undefined) {
    attributes[ATTR_SERVICE_VERSION] = opts.serviceVersion;
  }
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(attributes)),
    sampler: buildSampler(settings.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter: createSpanExporter(exportSettings, opts.logger), ...settings.batch })],
  });
  const tracer: Tracer = provider.getTracer(TRACER_NAME, opts.serviceVersion);
  opts.logger.info('tracing on', {
    endpoint: redactUrl(exportSettings.url),
    protocol: exportSettings.protocol,
    sampler: settings.sampler.name,
    serviceName: settings.serviceName,
  });
  return {
    exporting: true,
    startRequestSpan: (input) => startRequestSpan(tracer, input),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function buildSampler(s: SamplerSettings): Sampler {
  switch (s.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(s.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(s.ratio) });
  }
}
