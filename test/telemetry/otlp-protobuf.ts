// A minimal protobuf reader for OTLP `ExportTraceServiceRequest`, enough to check spans
// field by field. The OpenTelemetry JS packages ship a protobuf writer but no request
// decoder, so the test reads the wire format itself, following the field numbers of
// opentelemetry-proto (collector/trace/v1, trace/v1, common/v1, resource/v1).
import type { AttributeValue, ReceivedExport, ReceivedSpan } from './otlp-receiver.ts';

type Field = { no: number; wire: number; varint: bigint; bytes: Uint8Array };

function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) yield { no, wire, varint: varint(), bytes: new Uint8Array() };
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      yield { no, wire, varint: 0n, bytes: buf.subarray(pos, pos + size) };
      pos += size;
    } else if (wire === 2) {
      const len = Number(varint());
      yield { no, wire, varint: 0n, bytes: buf.subarray(pos, pos + len) };
      pos += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function anyValue(buf: Uint8Array): AttributeValue {
  for (const f of fields(buf)) {
    if (f.no === 1) return text(f.bytes);
    if (f.no === 2) return f.varint !== 0n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.varint));
    if (f.no === 4) return Buffer.from(f.bytes).readDoubleLE(0);
  }
  return '';
}

function attributes(list: Uint8Array[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of list) {
    let key = '';
    let value: AttributeValue = '';
    for (const f of fields(kv)) {
      if (f.no === 1) key = text(f.bytes);
      else if (f.no === 2) value = anyValue(f.bytes);
    }
    out[key] = value;
  }
  return out;
}

function repeated(buf: Uint8Array, no: number): Uint8Array[] {
  return [...fields(buf)].filter((f) => f.no === no).map((f) => f.bytes);
}

function span(buf: Uint8Array): ReceivedSpan {
  const s: ReceivedSpan = {
    traceId: '', spanId: '', parentSpanId: '', traceState: '', name: '', kind: 0,
    attributes: {}, status: { code: 0, message: '' }, links: [], events: [],
  };
  const attrs: Uint8Array[] = [];
  for (const f of fields(buf)) {
    if (f.no === 1) s.traceId = hex(f.bytes);
    else if (f.no === 2) s.spanId = hex(f.bytes);
    else if (f.no === 3) s.traceState = text(f.bytes);
    else if (f.no === 4) s.parentSpanId = hex(f.bytes);
    else if (f.no === 5) s.name = text(f.bytes);
    else if (f.no === 6) s.kind = Number(f.varint);
    else if (f.no === 9) attrs.push(f.bytes);
    else if (f.no === 11) s.events.push({ name: text(repeated(f.bytes, 2)[0] ?? new Uint8Array()), attributes: attributes(repeated(f.bytes, 3)) });
    else if (f.no === 13) s.links.push({ traceId: hex(repeated(f.bytes, 1)[0]!), spanId: hex(repeated(f.bytes, 2)[0]!) });
    else if (f.no === 15) {
      for (const g of fields(f.bytes)) {
        if (g.no === 2) s.status.message = text(g.bytes);
        else if (g.no === 3) s.status.code = Number(g.varint);
      }
    }
  }
  s.attributes = attributes(attrs);
  return s;
}

/** Decodes the body of a `POST /v1/traces` sent as `application/x-protobuf`. */
export function decodeProtobufExport(body: Uint8Array): Omit<ReceivedExport, 'path' | 'contentType' | 'headers'> {
  const out: Omit<ReceivedExport, 'path' | 'contentType' | 'headers'> = { resource: {}, scopes: [], spans: [] };
  for (const resourceSpans of repeated(body, 1)) {
    for (const f of fields(resourceSpans)) {
      if (f.no === 1) Object.assign(out.resource, attributes(repeated(f.bytes, 1)));
      else if (f.no === 2) {
        const scope = repeated(f.bytes, 1)[0];
        if (scope) out.scopes.push(text(repeated(scope, 1)[0] ?? new Uint8Array()));
        for (const s of repeated(f.bytes, 2)) out.spans.push(span(s));
      }
    }
  }
  return out;
}
