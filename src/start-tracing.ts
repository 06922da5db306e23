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
  // The trace SDK alone, not @opentelemetry/sdk-node: that one loads every exporter (gRPC among
  // them), metrics, logs and propagators at import, ~14 MiB of heap that stays for the process's
  // life, and under the API's 160 MiB old space that alone cost batch 1000 its tracing overhead in
  // garbage collection (docs/performance-analysis.md, issue 35 trace35c).
  const [{ context, diag, DiagConsoleLogger, propagation, trace }, core, { AsyncLocalStorageContextManager }, resources, { BasicTracerProvider, BatchSpanProcessor }, { registerInstrumentations }, http, pg, ioredis, undici, exporterModule, { BullMQOtel }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-undici'),
    config.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('bullmq-otel'),
  ]);
  const logLevel = env.OTEL_LOG_LEVEL;
  if (logLevel) diag.setLogger(new DiagConsoleLogger(), { logLevel: core.diagLogLevelFromString(logLevel) });
  // What NodeSDK did at start(): the resource from OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, the
  // process and the host (its default detectors), our service name unless OTEL_SERVICE_NAME is set.
  let resource = resources.defaultResource().merge(resources.detectResources({ detectors: [resources.envDetector, resources.processDetector, resources.hostDetector] }));
  if (!config.serviceName) resource = resource.merge(resources.resourceFromAttributes({ 'service.name': `contributor-ledger-${processKind}` }));
  // The provider reads OTEL_TRACES_SAMPLER(_ARG) and the OTEL_SPAN_* limits, the batch processor
  // OTEL_BSP_*, the exporter its endpoint, headers and timeout, all from the environment.
  const provider = new BasicTracerProvider({
    resource,
    // Outgoing URLs leave as scheme, host and port (RPC keys and webhook tokens live in paths).
    spanProcessors: [new BatchSpanProcessor(new UrlRedactingExporter(new exporterModule.OTLPTraceExporter(), { recordUrlPaths: config.recordUrlPaths }))],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // W3C traceparent/tracestate and baggage: NodeSDK's default propagators (OTEL_PROPAGATORS unset).
  propagation.setGlobalPropagator(new core.CompositePropagator({ propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
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
  });
  markTracingStarted(new BullMQOtel({ tracerName: 'bullmq' }), () => provider.shutdown());
  started = true;
  return true;
}
