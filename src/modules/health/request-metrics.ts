import type { FastifyInstance } from 'fastify';
import type { MetricsService } from './metrics.service.js';

/** Counts and times every request by its route pattern (not the raw URL: bounded label values). */
export function recordRequestMetrics(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? (reply.statusCode === 404 ? 'unmatched' : 'other');
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpLatency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
