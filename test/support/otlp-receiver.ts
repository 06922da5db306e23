// A tiny OTLP/HTTP trace receiver on 127.0.0.1 (a free port): decodes http/json and
// http/protobuf exports (the fields of opentelemetry/proto/trace/v1/trace.proto it needs, read
// off the protobuf wire format) into the same spans.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  service: string;
}

export interface OtlpReceiver {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT): exporters post to `${url}/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  protobufBodies: Buffer[];
  /** Every export as received (JSON text or protobuf bytes), to search for what must not be there. */
  rawBodies: Buffer[];
  close(): Promise<void>;
}

interface JsonValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface JsonAttribute {
  key: string;
  value: JsonValue;
}

function attributeValue(value: JsonValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return undefined;
}

const attributesOf = (list: JsonAttribute[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, attributeValue(a.value)]));

/** OTLP/JSON (the exporter's http/json): ids are hex strings, times decimal nanoseconds. */
function decodeJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as { resourceSpans?: Array<{ resource?: { attributes?: JsonAttribute[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const s of scope.spans ?? []) {
        spans.push({
          traceId: String(s.traceId),
          spanId: String(s.spanId),
          parentSpanId: String(s.parentSpanId ?? ''),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          startNs: BigInt(String(s.startTimeUnixNano)),
          endNs: BigInt(String(s.endTimeUnixNano)),
          attributes: attributesOf(s.attributes as JsonAttribute[] | undefined),
          links: ((s.links as Array<{ traceId: string; spanId: string }> | undefined) ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          service,
        });
      }
    }
  }
  return spans;
}

// ---- protobuf wire format: varint (0), fixed64 (1), length-delimited (2), fixed32 (5) ----------
type Field = { no: number; wire: number; value: bigint | Buffer };

function* fields(buf: Buffer): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) yield { no, wire, value: varint() };
    else if (wire === 1) {
      yield { no, wire, value: buf.readBigUInt64LE(at) };
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      yield { no, wire, value: buf.subarray(at, at + length) };
      at += length;
    } else if (wire === 5) at += 4;
    else throw new Error(`protobuf wire type ${wire} not expected in OTLP`);
  }
}

const sub = (buf: Buffer, no: number) => [...fields(buf)].filter((f) => f.no === no && f.wire === 2).map((f) => f.value as Buffer);
const first = (buf: Buffer, no: number) => [...fields(buf)].find((f) => f.no === no)?.value;

function protoAnyValue(buf: Buffer): unknown {
  for (const f of fields(buf)) {
    if (f.no === 1) return (f.value as Buffer).toString('utf8');
    if (f.no === 2) return f.value === 1n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.value as bigint));
    if (f.no === 4) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(f.value as bigint);
      return b.readDoubleLE(0);
    }
  }
  return undefined;
}

function protoAttributes(list: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(list.map((kv) => [(first(kv, 1) as Buffer | undefined)?.toString('utf8') ?? '', protoAnyValue((first(kv, 2) as Buffer | undefined) ?? Buffer.alloc(0))]));
}

const hex = (value: unknown) => (value instanceof Buffer ? value.toString('hex') : '');

/** ExportTraceServiceRequest { resource_spans = 1 { resource = 1, scope_spans = 2 { spans = 2 } } }. */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of sub(body, 1)) {
    const resource = sub(resourceSpans, 1)[0];
    const service = String(protoAttributes(resource ? sub(resource, 1) : [])['service.name'] ?? '');
    for (const scope of sub(resourceSpans, 2)) {
      for (const s of sub(scope, 2)) {
        spans.push({
          traceId: hex(first(s, 1)),
          spanId: hex(first(s, 2)),
          parentSpanId: hex(first(s, 4)),
          name: (first(s, 5) as Buffer | undefined)?.toString('utf8') ?? '',
          kind: Number(first(s, 6) ?? 0n),
          startNs: (first(s, 7) as bigint | undefined) ?? 0n,
          endNs: (first(s, 8) as bigint | undefined) ?? 0n,
          attributes: protoAttributes(sub(s, 9)),
          links: sub(s, 13).map((l) => ({ traceId: hex(first(l, 1)), spanId: hex(first(l, 2)) })),
          service,
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const protobufBodies: Buffer[] = [];
  const rawBodies: Buffer[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      rawBodies.push(body);
      const type = req.headers['content-type'] ?? '';
      if (type.startsWith('application/json')) {
        spans.push(...decodeJson(body.toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        protobufBodies.push(body);
        spans.push(...decodeProtobuf(body));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    protobufBodies,
    rawBodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
