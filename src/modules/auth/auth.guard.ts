import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../../common/errors/index.js';
import { parseBearer } from './api-key.js';
import { assertCanReadContributor } from './access.js';
import { AuthService } from './auth.service.js';
import type { Principal, Role } from '../../common/auth/auth.types.js';
import { PUBLIC_KEY, ROLES_KEY } from '../../common/auth/roles.decorator.js';
import { RateLimiter } from './rate-limiter.js';
import { RATE_LIMIT_KEY, type RateLimitPolicy } from './rate-limited.decorator.js';
import { SignedRequestVerifier, type AuthedRequest } from './signed-request-verifier.js';

/**
 * Global guard: a route must be @Public() or declare @Roles(); anything else is refused. Once the
 * key is authenticated and allowed, the route's @RateLimited() tokens are taken from its bucket.
 * Failed authentications count per client address; past AUTH_FAILURES_PER_MINUTE every keyed
 * request from it is 429 until its window ends (both limits shared by all API processes).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly limits: RateLimiter,
    private readonly signed: SignedRequestVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets);
    const policy = this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_KEY, context.getHandler());
    await this.authorize(context.switchToHttp().getRequest<AuthedRequest>(), roles, policy);
    return true;
  }

  /**
   * The guard's whole check for a route with these roles and rate limit, without Nest's execution
   * context: the lean ingestion route (usage-ingest-route.ts) calls it with the controller's own
   * metadata. Sets request.principal; throws the coded error otherwise.
   */
  async authorize(request: AuthedRequest, roles: readonly Role[] | undefined, policy: RateLimitPolicy | undefined): Promise<void> {
    if (!roles || roles.length === 0) throw new DomainError('forbidden', 'route declares no roles and is closed');
    const clientId = request.ip ?? 'unknown';
    const key = parseBearer(request.headers.authorization);
    if (!key) {
      await this.limits.recordFailure(clientId);
      throw new DomainError('unauthenticated', 'missing or malformed Authorization: Bearer <key> header');
    }
    const principal = await this.auth.authenticate(key);
    if (!principal) {
      await this.limits.recordFailure(clientId);
      throw new DomainError('unauthenticated', 'unknown or revoked API key');
    }
    // One call to the shared limits: a client blocked by its failed authentications is refused
    // (even with a valid key), else the route's tokens are taken from the key's bucket.
    if (!roles.includes(principal.role)) {
      await this.limits.admitWithoutCharge(clientId, principal.keyId);
      throw new DomainError('forbidden', `this route is for ${roles.join(', ')} keys`);
    }
    assertOwnContributorRoute(request, principal);
    // One property test for unsigned keys: their path does no other work.
    if (principal.signingKey !== undefined) await this.verifySignature(request, clientId, principal.keyId, principal.signingKey);
    request.principal = principal;
    await this.limits.admitPolicy(policy, request, clientId, principal.keyId);
  }

  /** A signed key without a valid signature is treated like a bad key (it counts as a failure). */
  private async verifySignature(request: AuthedRequest, clientId: string, keyId: string, signingKey: Buffer): Promise<void> {
    try {
      await this.signed.verify(request, keyId, signingKey);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'bad_signature') await this.limits.recordFailure(clientId);
      throw error;
    }
  }
}

/** Routes under a contributor's own path; `:id` is the contributor (as registered with Fastify). */
const CONTRIBUTOR_ROUTE = /^\/v1\/contributors\/:id(?:\/|$)/i;

/**
 * A contributor key may reach only its own `/v1/contributors/:id/...` routes. Checked here, before
 * pipes validate query and body: another contributor's id with a bad query was a 400 (telling the
 * caller about the route's inputs) where it must be the same 403 as any other request for it.
 * The services keep their own check (assertCanReadContributor) too.
 */
function assertOwnContributorRoute(request: AuthedRequest, principal: Principal): void {
  if (principal.role !== 'contributor' || !CONTRIBUTOR_ROUTE.test(request.routeOptions.url ?? '')) return;
  assertCanReadContributor(principal, String((request.params as Record<string, unknown> | undefined)?.id ?? ''));
}