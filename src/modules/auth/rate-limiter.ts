import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { RateLimitedError } from '../../common/errors/index.js';
import { RATE_LIMIT_KEY, type RateLimitPolicy } from './rate-limited.decorator.js';
import { TokenBuckets } from './token-buckets.js';

/**
 * Only authenticated keys reach a bucket, so the tracked set is the set of live API keys; the cap
 * bounds memory anyway (a deployment with more active keys than this only gets more lenient).
 */
export const RATE_LIMIT_KEYS_TRACKED_MAX = 10_000;

/**
 * Enforces @RateLimited() per API key. The global AuthGuard calls it once it has authenticated and
 * authorized the key, so calls refused with 401/403 never take a token. (It was an interceptor,
 * which also runs after every guard, but the only interceptor put an rxjs pipeline on every
 * request: ~15% of the API's CPU per single-event request.) State is per process: with N API
 * replicas a key may reach N times the limit (stated in docs/security.md).
 */
@Injectable()
export class RateLimiter {
  private readonly buckets: TokenBuckets;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
  ) {
    this.buckets = new TokenBuckets({
      capacity: config.RATE_LIMIT_BURST,
      refillPerMinute: config.RATE_LIMIT_PER_MINUTE,
      keysTrackedMax: RATE_LIMIT_KEYS_TRACKED_MAX,
    });
  }

  /** Takes the route's tokens from the key's bucket, or throws 429 (nothing for unlimited routes). */
  charge(context: ExecutionContext, request: FastifyRequest, keyId: string): void {
    const policy = this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_KEY, context.getHandler());
    if (!policy) return;
    const cost = Math.max(1, Math.floor(policy.cost(request)));
    const result = this.buckets.take(`${policy.name}:${keyId}`, cost);
    if (!result.allowed) {
      throw new RateLimitedError(`rate limit exceeded for this API key (${policy.name}), retry later`, result.retryAfterMs / 1000);
    }
  }
}
