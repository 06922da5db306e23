import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { assert, RateLimitedError } from '../../common/errors/index.js';
import type { AuthedRequest } from './principal.decorator.js';
import { RATE_LIMIT_KEY, type RateLimitPolicy } from './rate-limited.decorator.js';
import { TokenBuckets } from './token-buckets.js';

/**
 * Only authenticated keys reach a bucket, so the tracked set is the set of live API keys; the cap
 * bounds memory anyway (a deployment with more active keys than this only gets more lenient).
 */
export const RATE_LIMIT_KEYS_TRACKED_MAX = 10_000;

/**
 * Enforces @RateLimited() per API key. An interceptor rather than a guard because interceptors
 * always run after every guard: the global AuthGuard has resolved the principal (and refused
 * unauthenticated or wrong-role calls with 401/403) before a token is taken. State is per process:
 * with N API replicas a key may reach N times the limit (stated in docs/security.md).
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
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

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const policy = this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_KEY, context.getHandler());
    if (!policy || context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    assert(request.principal, 'a rate-limited route must declare @Roles()');
    const cost = Math.max(1, Math.floor(policy.cost(request)));
    const result = this.buckets.take(`${policy.name}:${request.principal.keyId}`, cost);
    if (!result.allowed) {
      throw new RateLimitedError(`rate limit exceeded for this API key (${policy.name}), retry later`, result.retryAfterMs / 1000);
    }
    return next.handle();
  }
}
