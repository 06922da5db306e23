// Every response carries `traceparent` (api.md "Operations"). With tracing on it is the request's
// own SERVER span, started here from Fastify's hooks (it continues the caller's traceparent and is
// named after the route pattern). With tracing off no span exists: the response
// keeps the caller's trace id (or a new one) with a fresh span id and the flags 00 (not
// recorded), so a caller can still correlate its logs with ours at the cost of 16 random bytes.
import { randomFillSync } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type TextMapGetter } from '@opentelemetry/api';
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
    /** The request's server span (tracing on), until onResponse ends it. */
    serverSpan?: Span;
  }
}

/** W3C `traceparent`/`tracestate` read from Fastify's (lower-case) header object. */
const headerGetter: TextMapGetter<FastifyRequest['headers']> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

/**
 * The attributes a server span starts with (HTTP semantic conventions, stable names). No query
 * (a caller may put anything there) and no header but the user agent (keys and signatures travel
 * in headers).
 */
function serverSpanAttributes(request: FastifyRequest, route: string | undefined): Attributes {
  const url = request.url;
  const queryAt = url.indexOf('?');
  const attributes: Attributes = {
    'http.request.method': request.method,
    'url.scheme': request.protocol,
    'url.path': queryAt === -1 ? url : url.slice(0, queryAt),
    'network.protocol.version': request.raw.httpVersion,
  };
  if (route) attributes['http.route'] = route;
  const userAgent = request.headers['user-agent'];
  if (userAgent) attributes['user_agent.original'] = userAgent;
  return attributes;
}

/**
 * The request's SERVER span, started from Fastify's hooks (the http instrumentation's incoming
 * side is off, src/start-tracing.ts): it continues the caller's `traceparent`, is named
 * `<METHOD> <route pattern>` and is the active span from onRequest to the handler: the rest of
 * the hooks run inside `context.with`, and the body, whose later chunks are socket reads outside
 * it, is handed on by Fastify's content-type parser through an AsyncResource created when parsing
 * starts, i.e. in the span's context (test: a body sent in pieces). onResponse (or
 * onRequestAbort) ends the span with the status code.
 */
function registerServerSpans(fastify: FastifyInstance): void {
  const tracer = trace.getTracer('contributor-ledger');
  fastify.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
    const span = tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER, attributes: serverSpanAttributes(request, route) }, parent);
    const spanContext = span.spanContext();
    reply.header('traceparent', formatTraceparent(spanContext));
    request.traceLogIds = { trace_id: spanContext.traceId, span_id: spanContext.spanId };
    request.serverSpan = span;
    context.with(trace.setSpan(parent, span), done);
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    endServerSpan(request, reply.statusCode);
    done();
  });
  fastify.addHook('onRequestAbort', (request: FastifyRequest, done) => {
    endServerSpan(request, undefined);
    done();
  });
}

function endServerSpan(request: FastifyRequest, statusCode: number | undefined): void {
  const span = request.serverSpan;
  if (!span) return;
  request.serverSpan = undefined;
  if (statusCode === undefined) {
    span.setAttribute('error.type', 'aborted');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
  } else {
    span.setAttribute('http.response.status_code', statusCode);
    // Server spans: only a 5xx is an error (a 4xx is the caller's).
    if (statusCode >= 500) {
      span.setAttribute('error.type', String(statusCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

export function registerTraceparent(fastify: FastifyInstance): void {
  if (tracingEnabled()) {
    registerServerSpans(fastify);
    return;
  }
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('traceparent', untracedTraceparent(request.headers.traceparent));
    done();
  });
}
