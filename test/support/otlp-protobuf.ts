/**
 * A reader of the protobuf encoding of OTLP `ExportTraceServiceRequest` (what the
 * `http/protobuf` exporter posts), into the shape of the JSON encoding, for the test collector:
 * the fields the tests read (ids, name, kind, attributes, status, resource attributes).
 */

type Wire = { no: number; varint?: bigint; bytes?: Buffer; fixed64?: Buffer };

function varint(buf: Buffer, at: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[at++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, at];
    shift += 7n;
  }
}

function fields(buf: Buffer): Wire[] {
  const out: Wire[] = [];
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = varint(buf, at);
    at = next;
    const no = Number(tag >> 3n);
    switch (Number(tag & 7n)) {
      case 0: {
        const [value, after] = varint(buf, at);
        out.push({ no, varint: value });
        at = after;
        break;
      }
      case 1:
        out.push({ no, fixed64: buf.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const [length, after] = varint(buf, at);
        out.push({ no, bytes: buf.subarray(after, after + Number(length)) });
        at = after + Number(length);
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new Error(`unsupported wire type in field ${no}`);
    }
  }
  return out;
}

const all = (buf: Buffer, no: number) =>
  fields(buf)
    .filter((f) => f.no === no && f.bytes)
    .map((f) => f.bytes as Buffer);
const one = (buf: Buffer, no: number) => fields(buf).find((f) => f.no === no);

function anyValue(buf: Buffer): Record<string, unknown> {
  const field = fields(buf)[0];
  if (field === undefined) return {};
  switch (field.no) {
    case 1:
      return { stringValue: field.bytes?.toString("utf8") };
    case 2:
      return { boolValue: field.varint === 1n };
    case 3:
      return { intValue: BigInt.asIntN(64, field.varint ?? 0n).toString() };
    case 4:
      return { doubleValue: field.fixed64?.readDoubleLE(0) };
    default:
      return {};
  }
}

function keyValues(buf: Buffer, no: number) {
  return all(buf, no).map((kv) => ({
    key: one(kv, 1)?.bytes?.toString("utf8") ?? "",
    value: anyValue(one(kv, 2)?.bytes ?? Buffer.alloc(0)),
  }));
}

/** The request as its JSON encoding would carry it (ids in hex, kind and status code as numbers). */
export function decodeTraceRequest(body: Buffer) {
  return {
    resourceSpans: all(body, 1).map((resourceSpans) => ({
      resource: { attributes: keyValues(one(resourceSpans, 1)?.bytes ?? Buffer.alloc(0), 1) },
      scopeSpans: all(resourceSpans, 2).map((scopeSpans) => ({
        spans: all(scopeSpans, 2).map((span) => ({
          traceId: one(span, 1)?.bytes?.toString("hex") ?? "",
          spanId: one(span, 2)?.bytes?.toString("hex") ?? "",
          parentSpanId: one(span, 4)?.bytes?.toString("hex"),
          name: one(span, 5)?.bytes?.toString("utf8") ?? "",
          kind: Number(one(span, 6)?.varint ?? 0n),
          attributes: keyValues(span, 9),
          status: { code: Number(one(one(span, 15)?.bytes ?? Buffer.alloc(0), 3)?.varint ?? 0n) },
        })),
      })),
    })),
  };
}

/**
 * An OTLP `ExportMetricsServiceRequest` in protobuf, as its JSON encoding would carry it: the
 * histograms' names, units, data point counts and attributes (what the tests read).
 */
export function decodeMetricsRequest(body: Buffer) {
  return {
    resourceMetrics: all(body, 1).map((resourceMetrics) => ({
      scopeMetrics: all(resourceMetrics, 2).map((scopeMetrics) => ({
        metrics: all(scopeMetrics, 2).map((metric) => {
          const histogram = one(metric, 9)?.bytes;
          return {
            name: one(metric, 1)?.bytes?.toString("utf8") ?? "",
            unit: one(metric, 3)?.bytes?.toString("utf8") ?? "",
            ...(histogram && {
              histogram: {
                dataPoints: all(histogram, 1).map((point) => ({
                  // HistogramDataPoint: count is fixed64 (4), attributes are KeyValue (9).
                  count: Number(one(point, 4)?.fixed64?.readBigUInt64LE(0) ?? 0n),
                  attributes: keyValues(point, 9),
                })),
              },
            }),
          };
        }),
      })),
    })),
  };
}
