import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  COLLECTOR_PROBE_INTERVAL_MS,
  CollectorGate,
} from "../../../src/adapters/observability/tracing/collector-gate.js";
import { failureReason } from "../../../src/adapters/observability/tracing/reporting-span-exporter.js";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** An HTTP server on 127.0.0.1 answering every request with `status` (port 0: any free one). */
async function answering(status: number, port = 0): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(status, { "content-type": "application/json" }).end("{}"));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const port = await answering(200);
  const server = servers.pop();
  await new Promise((done) => server?.close(done));
  return port;
}

/** The OTLP/HTTP exporter to `url`, counting the batches handed to it. */
function countingOtlp(url: string): { exporter: SpanExporter; batches: () => number } {
  const otlp = new OTLPTraceExporter({ url, timeoutMillis: 1_000 });
  let batches = 0;
  const exporter: SpanExporter = {
    export: (spans, done) => {
      batches++;
      otlp.export(spans, done);
    },
    shutdown: () => otlp.shutdown(),
  };
  return { exporter, batches: () => batches };
}

function exportOnce(gate: CollectorGate): Promise<ExportResult> {
  return new Promise((done) => gate.export([], done));
}

describe("the collector gate", () => {
  it("stops encoding batches once the collector refuses connections, and resumes when it listens", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1/traces`;
    const { exporter, batches } = countingOtlp(url);
    let now = 0;
    const gate = new CollectorGate(exporter, { url, now: () => now });

    const refused = await exportOnce(gate);
    expect(refused.code).toBe(ExportResultCode.FAILED);
    expect(failureReason(refused.error)).toBe("ECONNREFUSED");
    expect(batches()).toBe(1);

    // Failed at once, as lost, with the same reason; the exporter never sees the batch.
    const dropped = await exportOnce(gate);
    expect(dropped.code).toBe(ExportResultCode.FAILED);
    expect(failureReason(dropped.error)).toBe("ECONNREFUSED");
    expect(batches()).toBe(1);

    // The collector comes up; within the probe interval nothing is tried yet.
    await answering(200, port);
    now += COLLECTOR_PROBE_INTERVAL_MS / 2;
    expect((await exportOnce(gate)).code).toBe(ExportResultCode.FAILED);
    expect(batches()).toBe(1);

    // Past it, a batch starts a probe; once it connected, batches go to the collector again.
    now += COLLECTOR_PROBE_INTERVAL_MS;
    await vi.waitFor(async () => expect((await exportOnce(gate)).code).toBe(ExportResultCode.SUCCESS));
    expect(batches()).toBe(2);
    await gate.shutdown();
  });

  it("keeps sending after a failure that is not a refused connection (an HTTP status)", async () => {
    const url = `http://127.0.0.1:${await answering(400)}/v1/traces`;
    const { exporter, batches } = countingOtlp(url);
    const gate = new CollectorGate(exporter, { url, now: () => 0 });
    expect((await exportOnce(gate)).code).toBe(ExportResultCode.FAILED);
    expect((await exportOnce(gate)).code).toBe(ExportResultCode.FAILED);
    expect(batches()).toBe(2);
    await gate.shutdown();
  });

  it("stays closed while probes fail or throw, runs one probe at a time, and probes again after the interval", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1/traces`;
    const { exporter, batches } = countingOtlp(url);
    let now = 0;
    const answers: (() => Promise<boolean>)[] = [
      async () => false,
      async () => {
        throw new Error("probe broke");
      },
      async () => true,
    ];
    let probes = 0;
    const gate = new CollectorGate(exporter, {
      url,
      now: () => now,
      probe: () => {
        const next = answers[probes++];
        return next ? next() : Promise.resolve(true);
      },
    });
    expect((await exportOnce(gate)).code).toBe(ExportResultCode.FAILED);
    for (const expected of [1, 2]) {
      now += COLLECTOR_PROBE_INTERVAL_MS;
      // Two batches at once start one probe.
      await Promise.all([exportOnce(gate), exportOnce(gate)]);
      expect(probes).toBe(expected);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await exportOnce(gate)).code).toBe(ExportResultCode.FAILED);
      expect(batches()).toBe(1);
    }
    now += COLLECTOR_PROBE_INTERVAL_MS;
    await exportOnce(gate);
    expect(probes).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    // Reachable by the probe, so the next batch goes to the exporter (and fails there again).
    await exportOnce(gate);
    expect(batches()).toBe(2);
    await gate.shutdown();
  });
});
