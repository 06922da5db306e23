import type { FastifyInstance } from 'fastify';
import { sendError } from '../errors/error-body.js';

/**
 * NUL (%00) belongs in no id or query value of this API, and Postgres refuses it in text: an
 * unvalidated path parameter carrying it (GET /v1/holds/a%00b, the contributor `:id` routes,
 * POST /v1/holds/:hold_id/release ...) failed the query with a 500. Refused here once for every
 * route, before authentication, so the answer says nothing about what exists.
 */
export function refuseNulInUrl(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!request.url.includes('%00')) return done();
    sendError(reply, 400, 'validation_failed', 'request validation failed', [{ field: '(url)', message: 'must not contain NUL (%00)' }]);
  });
}
