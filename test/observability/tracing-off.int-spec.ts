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
  expect(on.packages).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-pg', '@opentelemetry/instrumentation-ioredis', '@opentelemetry/instrumentation-http']));
}, PROBE_TIMEOUT_MS * 2);
