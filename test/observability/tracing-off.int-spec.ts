// Issue 28: with tracing off nothing of OpenTelemetry but its tiny API is loaded (no SDK, no
// instrumentation patching pg, ioredis or http), so nothing of it runs per event. A fresh node
// process each time: the instrumentations patch modules as Node loads them, which jest bypasses.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const register = fileURLToPath(new URL('../support/ts-node/swc-register.mjs', import.meta.url));
const probe = fileURLToPath(new URL('../support/tracing-probe.mjs', import.meta.url));
const startTracingModule = fileURLToPath(new URL('../../src/start-tracing.ts', import.meta.url));
const PROBE_TIMEOUT_MS = 150_000;

async function loadedWith(otel: Record<string, string>): Promise<{ on: boolean; packages: string[] }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_')));
  const { stdout } = await run(process.execPath, ['--import', register, probe, startTracingModule], { env: { ...env, ...otel }, timeout: PROBE_TIMEOUT_MS });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { on: boolean; packages: string[] };
}

it('loads only @opentelemetry/api without an endpoint, the SDK and instrumentations with one', async () => {
  const [off, on] = await Promise.all([loadedWith({}), loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })]);
  expect(off).toEqual({ on: false, packages: ['@opentelemetry/api'] });
  // The same probe sees the SDK when tracing is on, so an empty list above is not a blind probe.
  expect(on.on).toBe(true);
  expect(on.packages).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-base', '@opentelemetry/instrumentation-pg', '@opentelemetry/instrumentation-ioredis', '@opentelemetry/instrumentation-http']));
  // Issue 35: the trace SDK alone. @opentelemetry/sdk-node loaded every exporter (gRPC too), the
  // logs SDK and more at import: ~14 MiB of heap for the process's life, batch 1000's tracing cost
  // in GC. (sdk-metrics stays: the OTLP exporter's transformer loads it.)
  const unused = ['@opentelemetry/sdk-node', '@opentelemetry/sdk-logs', '@opentelemetry/exporter-trace-otlp-grpc', '@opentelemetry/exporter-zipkin', '@opentelemetry/exporter-prometheus'];
  expect(on.packages.filter((name) => unused.includes(name))).toEqual([]);
}, PROBE_TIMEOUT_MS * 2);
