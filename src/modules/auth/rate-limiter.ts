import { Inject, Injectable, Logger, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { RateLimitedError } from '../../common/errors/index.js';
import { MetricsService } from '../health/metrics.service.js';
import { AUTH_FAILURE_WINDOW_MS, AuthFailureLimiter } from './auth-failure-limiter.js';
import { RATE_LIMIT_KEY, type RateLimitPolicy } from './rate-limited.decorator.js';
import { SharedLimitsStore } from './shared-limits.store.js';
import { TokenBuckets } from './token-buckets.js';
import { TokenLeases } from './token-leases.js';

/**
 * Only authenticated keys reach a bucket, so the tracked set is the set of live API keys; the cap
 * bounds memory anyway (a deployment with more active keys than this only gets more lenient).
 */
export const RATE_LIMIT_KEYS_TRACKED_MAX = 10_000;
/** At most one warning per interval while the shared limits are unreachable. */
const FALLBACK_WARN_INTERVAL_MS = 30_000;

/**
 * The ingestion rate limit (@RateLimited(), per API key) and the failed-authentication limit (per
 * client address), shared by every API process through Redis (SharedLimitsStore): a key limited
 * to N per minute gets N in total however many replicas serve it. When Redis cannot answer, each
 * process enforces the same limits on its own (fails open to per-process limits, so ingestion keeps
 * working through a Redis outage; with R replicas a key may then reach R times the limit for the
 * outage's length). The AuthGuard calls it only after authenticating and authorizing the key, so
 * calls refused with 401/403 never take a token.
 * A busy key does not cost a Redis call per request: the process leases a block of its tokens
 * (token-leases.ts) and spends it locally for at most LEASE_TTL_MS, so the shared total stays
 * exactly the bucket's; a client blocked by failed authentications on another replica is then
 * refused here within that TTL (at once on the replica that counted the failures).
 */
@Injectable()
export class RateLimiter {
  private readonly buckets: TokenBuckets;
  private readonly leases = new TokenLeases();
  private readonly logger = new Logger('RateLimiter');
  private lastWarnAtMs = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reflector: Reflector,
    private readonly shared: SharedLimitsStore,
    private readonly localFailures: AuthFailureLimiter,
    private readonly metrics: MetricsService,
  ) {
    this.buckets = new TokenBuckets({
      capacity: config.RATE_LIMIT_BURST,
      refillPerMinute: config.RATE_LIMIT_PER_MINUTE,
      keysTrackedMax: RATE_LIMIT_KEYS_TRACKED_MAX,
    });
  }

  /** Throws 429 when the client is blocked by failed authentications or the key's bucket is empty. */
  async admit(context: ExecutionContext, request: FastifyRequest, clientId: string, keyId: string): Promise<void> {
    await this.admitPolicy(this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_KEY, context.getHandler()), request, clientId, keyId);
  }

  /** admit() with the route's policy already read (no policy: only the failed-authentication block). */
  async admitPolicy(policy: RateLimitPolicy | undefined, request: FastifyRequest, clientId: string, keyId: string): Promise<void> {
    await this.charge(clientId, keyId, policy ? { name: policy.name, cost: Math.max(1, Math.floor(policy.cost(request))) } : null);
  }

  /** Takes `bucket.cost` tokens of the key's bucket (from this process's lease when it has one). */
  async charge(clientId: string, keyId: string, bucket: { name: string; cost: number } | null): Promise<void> {
    await this.check(clientId, keyId, bucket);
  }

  /** Only the failed-authentication block (a request about to be refused takes no tokens). */
  async admitWithoutCharge(clientId: string, keyId: string): Promise<void> {
    await this.check(clientId, keyId, null);
  }

  private async check(clientId: string, keyId: string, bucket: { name: string; cost: number } | null): Promise<void> {
    const leaseKey = bucket ? `${bucket.name}:${keyId}` : '';
    if (this.shared.available && bucket && this.leases.spend(clientId, leaseKey, bucket.cost)) return;
    const decided = await this.decideShared(clientId, async () => {
      const ask = bucket ? { ...bucket, ...this.leases.request(clientId, leaseKey, bucket.cost) } : null;
      const result = await this.shared.admit(clientId, ask, keyId, this.config.AUTH_FAILURES_PER_MINUTE, this.config.RATE_LIMIT_BURST, this.config.RATE_LIMIT_PER_MINUTE);
      if (result.outcome === 'admitted') {
        if (bucket) this.leases.grant(clientId, leaseKey, result.grantedTokens, bucket.cost);
        return;
      }
      if (result.outcome === 'blocked') this.leases.dropClient(clientId);
      throw result.outcome === 'blocked' ? blockedError(result.retryAfterMs) : rateLimitedError(bucket!.name, result.retryAfterMs);
    });
    if (decided || !bucket) return;
    const local = this.buckets.take(leaseKey, bucket.cost);
    if (!local.allowed) throw rateLimitedError(bucket.name, local.retryAfterMs);
  }

  /** Counts a failed authentication; throws 429 if the client is (now) over its limit. */
  async recordFailure(clientId: string): Promise<void> {
    // Its next keyed requests ask Redis again, which knows whether it is now blocked.
    this.leases.dropClient(clientId);
    const decided = await this.decideShared(clientId, async () => {
      const { count, retryAfterMs } = await this.shared.recordFailure(clientId, AUTH_FAILURE_WINDOW_MS);
      if (count > this.config.AUTH_FAILURES_PER_MINUTE) throw blockedError(retryAfterMs);
    });
    if (!decided) this.localFailures.recordFailure(clientId);
  }

  /**
   * Runs `decide` on the shared limits: true once it returns (admitted), its RateLimitedError
   * passes through. Redis unavailable or failing: false after this process's own failed-auth
   * block is checked, and the caller goes on with its local limits.
   */
  private async decideShared(clientId: string, decide: () => Promise<void>): Promise<boolean> {
    if (this.shared.available) {
      try {
        await decide();
        return true;
      } catch (error) {
        if (error instanceof RateLimitedError) throw error;
        this.fellBack(error);
      }
    } else {
      this.fellBack(null);
    }
    this.localFailures.assertNotBlocked(clientId);
    return false;
  }

  private fellBack(error: unknown): void {
    this.metrics.sharedLimitsFallbacks.inc();
    const now = Date.now();
    if (now - this.lastWarnAtMs < FALLBACK_WARN_INTERVAL_MS) return;
    this.lastWarnAtMs = now;
    const reason = error instanceof Error ? error.message : 'not connected';
    this.logger.warn(`shared rate limits unavailable (${reason}): this process enforces the limits on its own`);
  }
}

function blockedError(retryAfterMs: number): RateLimitedError {
  return new RateLimitedError('too many failed authentications, retry later', retryAfterMs / 1000);
}

function rateLimitedError(name: string, retryAfterMs: number): RateLimitedError {
  return new RateLimitedError(`rate limit exceeded for this API key (${name}), retry later`, retryAfterMs / 1000);
}
