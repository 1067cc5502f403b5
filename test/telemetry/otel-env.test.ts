// Which OTEL_* settings turn trace export on, where it goes and how (pure; no network).
import { describe, expect, it } from 'vitest';
import { DEFAULT_OTLP_TRACES_URL, readTracingSettings } from '../../src/telemetry/otel-env.ts';

const read = (env: Record<string, string>) => readTracingSettings(env, 'gatehouse');

describe('readTracingSettings', () => {
  it('exports nothing by default', () => {
    const s = read({});
    expect(s.export).toBeUndefined();
    expect(s.warnings).toEqual([]);
    expect(s.serviceName).toBe('gatehouse');
    expect(s.sampler).toEqual({ name: 'parentbased_always_on', ratio: 1 });
  });

  it('exports when an endpoint is set, appending v1/traces to the general one only', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).export?.url).toBe('http://collector:4318/v1/traces');
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base/' }).export?.url).toBe('http://collector:4318/base/v1/traces');
    expect(
      read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces' }).export?.url,
    ).toBe('http://b:4318/traces');
  });

  it('exports to the spec default endpoint when only OTEL_TRACES_EXPORTER=otlp is set', () => {
    expect(read({ OTEL_TRACES_EXPORTER: 'otlp' }).export?.url).toBe(DEFAULT_OTLP_TRACES_URL);
  });

  it('does not export with OTEL_TRACES_EXPORTER=none, an unsupported exporter, or OTEL_SDK_DISABLED=true', () => {
    expect(read({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).export).toBeUndefined();
    const zipkin = read({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    expect(zipkin.export).toBeUndefined();
    expect(zipkin.warnings).toEqual(['OTEL_TRACES_EXPORTER=zipkin is not supported; only otlp and none are']);
    expect(read({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).export).toBeUndefined();
  });

  it('treats empty values as unset', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: ' ' }).export).toBeUndefined();
  });

  it('uses protobuf unless http/json is asked for, and refuses grpc with a warning', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).export?.protocol).toBe('http/protobuf');
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).export?.protocol).toBe('http/json');
    const grpc = read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
    expect(grpc.export).toBeUndefined();
    expect(grpc.warnings[0]).toContain('grpc is not supported');
  });

  it('merges headers key by key, the traces-specific ones winning, and decodes values', () => {
    const s = read({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc,x-tenant=a',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=b',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    expect(s.export).toEqual({
      url: 'http://c:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: { authorization: 'Basic abc', 'x-tenant': 'b' },
      timeoutMillis: 2500,
      compression: 'gzip',
    });
  });

  it('rejects an endpoint that is not a URL', () => {
    const s = read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' });
    expect(s.export).toBeUndefined();
    expect(s.warnings).toHaveLength(1);
  });

  it('names a bad endpoint by its variable without echoing it, since it can hold credentials', () => {
    // Port out of range: not a URL, with a password in it.
    const s = read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel:s3cr3t-pw@collector:99999' });
    expect(s.export).toBeUndefined();
    expect(s.warnings).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT is not a URL; traces are not exported']);
  });

  it('reads the sampler and its ratio, falling back with a warning', () => {
    expect(read({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).sampler).toEqual({
      name: 'parentbased_traceidratio',
      ratio: 0.25,
    });
    expect(read({ OTEL_TRACES_SAMPLER: 'always_off' }).sampler).toEqual({ name: 'always_off', ratio: 1 });
    const bad = read({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '7' });
    expect(bad.sampler).toEqual({ name: 'traceidratio', ratio: 1 });
    expect(bad.warnings).toHaveLength(1);
    const unknown = read({ OTEL_TRACES_SAMPLER: 'jaeger_remote' });
    expect(unknown.sampler.name).toBe('parentbased_always_on');
    expect(unknown.warnings).toHaveLength(1);
  });

  it('takes service.name from OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then the default', () => {
    expect(read({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod' }).serviceName).toBe('from-attrs');
    const both = read({ OTEL_SERVICE_NAME: 'from-name', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs' });
    expect(both.serviceName).toBe('from-name');
    expect(read({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod' }).resourceAttributes).toEqual({ 'deployment.environment': 'prod' });
  });

  it('reads the batch processor settings', () => {
    expect(read({ OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'x' })).toMatchObject({
      batch: { scheduledDelayMillis: 200, maxQueueSize: 100, maxExportBatchSize: undefined, exportTimeoutMillis: undefined },
      warnings: ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE=x is not a positive integer; ignored'],
    });
  });
});
