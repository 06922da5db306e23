// POST /v1/usage-events without Nest's per-request pipeline. The route stays declared on
// UsageController (OpenAPI, roles, rate limit); when Fastify registers it, its handler is replaced
// by one that does the same three steps directly: the AuthGuard's check with the controller's own
// metadata, the body schema (as the global ZodValidationPipe; plain bodies without zod's machinery,
// usage-event-parse.ts), then the controller method. Errors
// are thrown to Fastify's error handler, which is Nest's global exception filter (as for the body
// parser's errors), so every answer keeps the api.md shape.
// Why: Nest's router execution context, guard consumer and pipes allocate ~12 KiB per request and
// were ~4% of a single event's API CPU in self time alone (docs/performance-analysis.md, issue 35).
import type { INestApplication } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ZodValidationException } from 'nestjs-zod';
import { ROLES_KEY } from '../../common/auth/roles.decorator.js';
import type { Role } from '../../common/auth/auth.types.js';
import { AuthGuard } from '../auth/auth.guard.js';
import { AuthService } from '../auth/auth.service.js';
import { RATE_LIMIT_KEY, type RateLimitPolicy } from '../auth/rate-limited.decorator.js';
import { RateLimiter } from '../auth/rate-limiter.js';
import { SignedRequestVerifier, type AuthedRequest } from '../auth/signed-request-verifier.js';
import { UsageController } from './usage.controller.js';
import type { UsageEventDto } from './usage.schemas.js';
import { parseUsageEvent } from './usage-event-parse.js';

/** The route as Nest registers it (the router ignores case and a trailing slash anyway). */
export const LEAN_INGEST_ROUTE = { method: 'POST', url: '/v1/usage-events' } as const;

function isLeanIngestRoute(route: RouteOptions): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.length === 1 && methods[0] === LEAN_INGEST_ROUTE.method && route.url === LEAN_INGEST_ROUTE.url;
}

/** The handler: the guard, the body schema and UsageController.ingest, as Nest would run them. */
export function leanIngestHandler(guard: AuthGuard, controller: UsageController, reflector: Reflector) {
  const method = UsageController.prototype.ingest;
  // Read once from the decorators, so the lean route cannot drift from the declared one.
  const roles = reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [method, UsageController]);
  const policy = reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_KEY, method);
  return async function ingestUsageEvent(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    await guard.authorize(request as AuthedRequest, roles, policy);
    const parsed = parseUsageEvent(request.body);
    // The exception the global ZodValidationPipe throws, so the filter answers the same 400.
    if (!parsed.success) throw new ZodValidationException(parsed.error);
    return controller.ingest(parsed.data as UsageEventDto, reply);
  };
}

/**
 * Swaps the handler of POST /v1/usage-events when Nest registers it (call before app.init()).
 * Only the handler changes: Fastify's hooks (traceparent, body parser, metrics, request log) and
 * the error handler are the route's own.
 */
export function registerLeanIngestRoute(fastify: FastifyInstance, app: INestApplication): void {
  const reflector = app.get(Reflector);
  const guard = new AuthGuard(reflector, app.get(AuthService, { strict: false }), app.get(RateLimiter, { strict: false }), app.get(SignedRequestVerifier, { strict: false }));
  const handler = leanIngestHandler(guard, app.get(UsageController, { strict: false }), reflector);
  fastify.addHook('onRoute', (route) => {
    if (isLeanIngestRoute(route)) route.handler = handler;
  });
}
