// Every response carries `traceparent` (api.md "Operations"). With tracing on it is the request's
// own span (the http instrumentation's server span, which continued the caller's traceparent);
// the span is also named after the route pattern. With tracing off no span exists: the response
// keeps the caller's trace id (or a new one) with a fresh span id and the flags 00 (not
// recorded), so a caller can still correlate its logs with ours at the cost of 16 random bytes.
import { randomFillSync } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { trace } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent, tracingEnabled } from './tracing.js';

/** Random ids are cut from one buffer refilled every this many bytes (one syscall per 256 ids). */
const RANDOM_POOL_BYTES = 4096;
const pool = Buffer.alloc(RANDOM_POOL_BYTES);
let poolOffset = RANDOM_POOL_BYTES;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > RANDOM_POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** The traceparent of an untraced response: the caller's trace (if valid), a new span id, not sampled. */
export function untracedTraceparent(incoming: unknown): string {
  const parent = parseTraceparent(Array.isArray(incoming) ? incoming[0] : incoming);
  return `00-${parent?.traceId ?? randomHex(16)}-${randomHex(8)}-00`;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** trace_id / span_id of the request's span, for its completion log line (tracing on). */
    traceLogIds?: { trace_id: string; span_id: string };
  }
}

export function registerTraceparent(fastify: FastifyInstance): void {
  if (!tracingEnabled()) {
    fastify.addHook('onRequest', (request, reply, done) => {
      reply.header('traceparent', untracedTraceparent(request.headers.traceparent));
      done();
    });
    return;
  }
  fastify.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const span = trace.getActiveSpan();
    if (span) {
      const spanContext = span.spanContext();
      reply.header('traceparent', formatTraceparent(spanContext));
      request.traceLogIds = { trace_id: spanContext.traceId, span_id: spanContext.spanId };
      const route = request.routeOptions.url;
      if (route) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
    } else {
      reply.header('traceparent', untracedTraceparent(request.headers.traceparent));
    }
    done();
  });
}
