// Starts OpenTelemetry before anything else is imported (main.ts and worker.ts import the app
// only after this resolves), so the instrumentations see pg, ioredis and http load. With no
// OTEL_EXPORTER_OTLP_ENDPOINT nothing is imported at all: no SDK, no hooks, no cost.
//
// ESM: pg is CommonJS inside (its ESM entry requires lib/*.js), so require-in-the-middle patches
// it as usual; ioredis is imported from our ESM modules, which only import-in-the-middle sees: its
// loader hook is registered here (module.register, Node >= 20.6) for ioredis alone, so the other
// modules load unwrapped. http is a builtin patched in place; fetch (undici, used by viem and the
// webhook sender) is traced through its diagnostics channels.
import { register } from 'node:module';
import { parseTracingEnv } from './config/tracing.config.js';
import { markTracingStarted } from './common/tracing/tracing.js';
import { pgStatementHook, redisStatement } from './common/tracing/db-statement.js';
import { UrlRedactingExporter } from './common/tracing/url-redaction.js';

/** Modules loaded through the ESM loader that an instrumentation must patch. */
const ESM_HOOKED_MODULES = ['ioredis'];

let started = false;

/** `process`: 'api' or 'worker', the default service name suffix (OTEL_SERVICE_NAME wins). */
export async function startTracing(processKind: 'api' | 'worker', env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const config = parseTracingEnv(env);
  if (!config.endpoint || started) return started;
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ESM_HOOKED_MODULES } });
  const [{ NodeSDK }, http, pg, ioredis, undici, exporterModule, { BullMQOtel }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
    config.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('bullmq-otel'),
  ]);
  const sdk = new NodeSDK({
    // The SDK reads OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_* and the exporter's
    // endpoint, headers and timeout from the environment itself.
    ...(config.serviceName ? {} : { serviceName: `contributor-ledger-${processKind}` }),
    // Outgoing URLs leave as scheme, host and port (RPC keys and webhook tokens live in paths).
    traceExporter: new UrlRedactingExporter(new exporterModule.OTLPTraceExporter(), { recordUrlPaths: config.recordUrlPaths }),
    instrumentations: [
      // Outgoing calls only inside a trace (no root spans for background polling). The incoming
      // side is off: the API's server span comes from Fastify's hooks (common/tracing/http-tracing.ts),
      // without wrapping the server's emit and binding every request's and response's emitters.
      new http.HttpInstrumentation({ requireParentforOutgoingSpans: true, disableIncomingRequestInstrumentation: true }),
      // No pool-checkout spans: two per query of the hot path, and a slow checkout shows as the
      // gap before a query anyway. The statement text is cut to its start: the group commit's
      // kilobytes of SQL were encoded into every one of its spans (common/tracing/db-statement.ts).
      new pg.PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true, enhancedDatabaseReporting: false, requestHook: pgStatementHook }),
      // The command name only: the default serializer matched ~10 regexes per command.
      new ioredis.IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
      new undici.UndiciInstrumentation({ requireParentforSpans: true }),
    ],
    // Traces only: metrics stay on /metrics (Prometheus), logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  markTracingStarted(new BullMQOtel({ tracerName: 'bullmq' }), () => sdk.shutdown());
  started = true;
  return true;
}
