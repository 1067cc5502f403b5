// A real OTLP/HTTP trace receiver for tests: a node http server on 127.0.0.1 that accepts
// `POST /v1/traces` (any path is recorded, so a wrong path shows up in assertions), answers
// 200 like a collector, and decodes what arrived, JSON or protobuf, into one plain shape.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtobufExport } from './otlp-protobuf.ts';

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  links: { traceId: string; spanId: string }[];
  events: { name: string; attributes: Record<string, AttributeValue> }[];
}

export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: IncomingHttpHeaders;
  resource: Record<string, AttributeValue>;
  scopes: string[];
  spans: ReceivedSpan[];
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  exports: ReceivedExport[];
  /** Every span received so far, across exports. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      const decoded = contentType.includes('json') ? decodeJsonExport(JSON.parse(body.toString('utf8'))) : decodeProtobufExport(body);
      exports.push({ path: req.url ?? '', contentType, headers: req.headers, ...decoded });
      // An empty ExportTraceServiceResponse: `{}` in JSON, zero bytes in protobuf.
      res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(contentType.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.flatMap((e) => e.spans),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Json = Record<string, unknown>;

function jsonValue(v: Json | undefined): AttributeValue {
  if (!v) return '';
  if ('stringValue' in v) return String(v.stringValue);
  if ('boolValue' in v) return Boolean(v.boolValue);
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  return '';
}

function jsonAttributes(list: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of (list as Json[] | undefined) ?? []) out[String(kv.key)] = jsonValue(kv.value as Json | undefined);
  return out;
}

/** OTLP/JSON: ids are hex strings, enums are numbers (OTLP spec, "JSON Protobuf Encoding"). */
function decodeJsonExport(body: Json): Omit<ReceivedExport, 'path' | 'contentType' | 'headers'> {
  const out: Omit<ReceivedExport, 'path' | 'contentType' | 'headers'> = { resource: {}, scopes: [], spans: [] };
  for (const rs of (body.resourceSpans as Json[] | undefined) ?? []) {
    Object.assign(out.resource, jsonAttributes((rs.resource as Json | undefined)?.attributes));
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      out.scopes.push(String((ss.scope as Json | undefined)?.name ?? ''));
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        const status = (s.status as Json | undefined) ?? {};
        out.spans.push({
          traceId: String(s.traceId ?? ''),
          spanId: String(s.spanId ?? ''),
          parentSpanId: String(s.parentSpanId ?? ''),
          traceState: String(s.traceState ?? ''),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          attributes: jsonAttributes(s.attributes),
          status: { code: Number(status.code ?? 0), message: String(status.message ?? '') },
          links: ((s.links as Json[] | undefined) ?? []).map((l) => ({ traceId: String(l.traceId), spanId: String(l.spanId) })),
          events: ((s.events as Json[] | undefined) ?? []).map((e) => ({ name: String(e.name), attributes: jsonAttributes(e.attributes) })),
        });
      }
    }
  }
  return out;
}
