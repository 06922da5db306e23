// BENCH_TRACING=1: the benchmark's API exports its traces here, a local OTLP/HTTP endpoint that
// reads and drops every export (so the figures price the API's tracing, not a collector).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startOtlpSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/x-protobuf') }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
