// What the rest of the code asks of tracing. Only the tiny @opentelemetry/api is imported here
// (no SDK); every helper first checks `tracingEnabled()`, so with tracing off (no
// OTEL_EXPORTER_OTLP_ENDPOINT) none of them builds a span, a context or an attribute object.
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Link, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';

export { SpanKind };
export type { Span, SpanContext };

let enabled = false;
let tracer: Tracer | null = null;
let bullmqTelemetry: Telemetry | undefined;
let shutdownSdk: (() => Promise<void>) | null = null;

/** Called once by src/start-tracing.ts after the SDK started (shutdown flushes its spans). */
export function markTracingStarted(telemetry: Telemetry, shutdown: () => Promise<void> = async () => undefined): void {
  enabled = true;
  tracer = trace.getTracer('contributor-ledger');
  bullmqTelemetry = telemetry;
  shutdownSdk = shutdown;
}

/** Flushes the spans still buffered (on shutdown of the API or worker). */
export async function shutdownTracing(): Promise<void> {
  const shutdown = shutdownSdk;
  shutdownSdk = null;
  await shutdown?.().catch(() => undefined);
}

export function tracingEnabled(): boolean {
  return enabled;
}

/** BullMQ's `telemetry` option (bullmq-otel) for queues and workers; undefined when off. */
export function queueTelemetry(): Telemetry | undefined {
  return bullmqTelemetry;
}

/** The active span's context, when tracing is on and a span is active. */
export function activeSpanContext(): SpanContext | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  return span?.spanContext();
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** A W3C traceparent (version 00) as a span context; null when malformed or all-zero ids. */
export function parseTraceparent(value: unknown): SpanContext | null {
  if (typeof value !== 'string') return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match || match[1] === ZERO_TRACE_ID || match[2] === ZERO_SPAN_ID) return null;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
}

export function formatTraceparent(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** `trace_id` and `span_id` (snake_case, api.md) of the active span: pino's mixin when tracing is on. */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** pino's `mixin` option: the active span's ids on every line, only when tracing is on. */
export function traceLogMixin(): (() => Record<string, string>) | undefined {
  return enabled ? traceLogFields : undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** A remote parent (a traceparent header, a job's metadata): the span continues that trace. */
  parent?: SpanContext;
  links?: Link[];
}

/**
 * Runs `work` inside a new active span (child of `parent`, else of the active span) and ends it,
 * with an error status when `work` throws. With tracing off, `work` runs as is.
 */
export function withSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!enabled || !tracer) return work(undefined);
  const parentContext = options.parent ? trace.setSpanContext(ROOT_CONTEXT, options.parent) : context.active();
  return tracer.startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parentContext, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
