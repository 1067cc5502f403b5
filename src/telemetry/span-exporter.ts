// The OTLP/HTTP span exporter for the configured protocol, wrapped so that export failures
// reach our structured log. Without the wrapper they go to OpenTelemetry's global `diag`
// logger, which is silent unless registered process-wide, and we register nothing globally.
// Logging is on transitions (working -> failing -> working) plus a count of spans lost, so a
// collector outage is visible without one log line per batch.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from './logger.ts';
import type { TraceExportSettings } from './otel-env.ts';

type ExporterConfig = NonNullable<ConstructorParameters<typeof OtlpJsonExporter>[0]>;

export function createSpanExporter(settings: TraceExportSettings, logger: Logger): SpanExporter {
  const config: ExporterConfig = {
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: settings.timeoutMillis,
    // The exporter types compression as an enum whose values are exactly these strings.
    compression: settings.compression as ExporterConfig['compression'],
  };
  const inner = settings.protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtobufExporter(config);
  return withFailureLog(inner, logger, redactUrl(settings.url));
}

function withFailureLog(inner: SpanExporter, logger: Logger, endpoint: string): SpanExporter {
  let failing = false;
  let lost = 0;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      inner.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) {
          if (failing) logger.info('trace export recovered', { endpoint, spansLost: lost });
          failing = false;
          lost = 0;
        } else {
          lost += spans.length;
          if (!failing) logger.warn('trace export failed', { endpoint, error: result.error?.message, spans: spans.length });
          failing = true;
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The endpoint without userinfo or query, which can hold credentials, for logs. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}
