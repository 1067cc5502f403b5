// Reads the standard OpenTelemetry environment variables that decide whether, where and how
// traces are exported (OpenTelemetry specification: "Environment Variable Specification" and
// "OTLP Exporter Configuration"). Pure: the caller passes the environment in, and gets back
// settings plus the warnings to log. One deliberate difference from the SDK default:
// `OTEL_TRACES_EXPORTER` unset means "export only if an OTLP endpoint is configured", so a
// gateway started with no OTEL_* variables exports nothing and tries no connection.
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';

export type EnvSource = Readonly<Record<string, string | undefined>>;

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export const SAMPLER_NAMES = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLER_NAMES)[number];

export interface SamplerSettings {
  name: SamplerName;
  /** Only read by the ratio samplers. */
  ratio: number;
}

export interface TraceExportSettings {
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  timeoutMillis?: number;
  compression?: 'gzip' | 'none';
}

export interface BatchSettings {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
}

export interface TracingSettings {
  /** Undefined: nothing is exported and spans are no-ops. */
  export: TraceExportSettings | undefined;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: SamplerSettings;
  batch: BatchSettings;
  /** Things the operator asked for that are ignored, to be logged once at boot. */
  warnings: string[];
}

/** The spec's default for OTLP/HTTP (port 4318), used when only OTEL_TRACES_EXPORTER=otlp is set. */
export const DEFAULT_OTLP_TRACES_URL = 'http://localhost:4318/v1/traces';
const TRACES_PATH = 'v1/traces';
const DEFAULT_SAMPLER: SamplerSettings = { name: 'parentbased_always_on', ratio: 1 };

export function readTracingSettings(env: EnvSource, defaultServiceName: string): TracingSettings {
  const warnings: string[] = [];
  const resourceAttributes = parseKeyPairsIntoRecord(get(env, 'OTEL_RESOURCE_ATTRIBUTES'));
  const serviceName = get(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? defaultServiceName;
  return {
    export: readExport(env, warnings),
    serviceName,
    resourceAttributes,
    sampler: readSampler(env, warnings),
    batch: {
      scheduledDelayMillis: positiveInt(env, 'OTEL_BSP_SCHEDULE_DELAY', warnings),
      exportTimeoutMillis: positiveInt(env, 'OTEL_BSP_EXPORT_TIMEOUT', warnings),
      maxQueueSize: positiveInt(env, 'OTEL_BSP_MAX_QUEUE_SIZE', warnings),
      maxExportBatchSize: positiveInt(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', warnings),
    },
    warnings,
  };
}

function readExport(env: EnvSource, warnings: string[]): TraceExportSettings | undefined {
  if (get(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const specific = get(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = get(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const exporters = (get(env, 'OTEL_TRACES_EXPORTER') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  for (const name of exporters) {
    if (name !== 'otlp' && name !== 'none') warnings.push(`OTEL_TRACES_EXPORTER=${name} is not supported; only otlp and none are`);
  }
  const wanted = exporters.length > 0 ? exporters.includes('otlp') && !exporters.includes('none') : specific !== undefined || general !== undefined;
  if (!wanted) return undefined;

  const protocol = get(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? get(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported (http/protobuf, http/json); traces are not exported`);
    return undefined;
  }
  // A signal-specific endpoint is used as is; the general one gets `v1/traces` appended
  // (OTLP exporter spec, "Endpoint URLs for OTLP/HTTP").
  const url = specific ?? (general !== undefined ? `${general}${general.endsWith('/') ? '' : '/'}${TRACES_PATH}` : DEFAULT_OTLP_TRACES_URL);
  if (!URL.canParse(url)) {
    // Named by its variable, not echoed: an endpoint can carry credentials (user:password@).
    const from = specific !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
    warnings.push(`${from} is not a URL; traces are not exported`);
    return undefined;
  }
  const compression = get(env, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION') ?? get(env, 'OTEL_EXPORTER_OTLP_COMPRESSION');
  if (compression !== undefined && compression !== 'gzip' && compression !== 'none') {
    warnings.push(`OTEL_EXPORTER_OTLP_COMPRESSION=${compression} is not supported (gzip, none); sending uncompressed`);
  }
  return {
    url,
    protocol,
    // Signal-specific headers win over general ones, key by key (OTLP exporter spec).
    headers: {
      ...parseKeyPairsIntoRecord(get(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
      ...parseKeyPairsIntoRecord(get(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    timeoutMillis:
      positiveInt(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', warnings) ?? positiveInt(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', warnings),
    compression: compression === 'gzip' || compression === 'none' ? compression : undefined,
  };
}

function readSampler(env: EnvSource, warnings: string[]): SamplerSettings {
  const raw = get(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase();
  const name = SAMPLER_NAMES.find((n) => n === raw);
  if (raw !== undefined && name === undefined) {
    warnings.push(`OTEL_TRACES_SAMPLER=${raw} is not supported; using parentbased_always_on`);
  }
  if (name === undefined) return DEFAULT_SAMPLER;
  const arg = get(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (arg === undefined || !name.endsWith('traceidratio')) return { name, ratio: 1 };
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    warnings.push(`OTEL_TRACES_SAMPLER_ARG=${arg} is not a ratio in [0, 1]; using 1`);
    return { name, ratio: 1 };
  }
  return { name, ratio };
}

function positiveInt(env: EnvSource, key: string, warnings: string[]): number | undefined {
  const raw = get(env, key);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return n;
  warnings.push(`${key}=${raw} is not a positive integer; ignored`);
  return undefined;
}

/** The spec treats an empty value as unset. */
function get(env: EnvSource, key: string): string | undefined {
  const value = env[key]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
