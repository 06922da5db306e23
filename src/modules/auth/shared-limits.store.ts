import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';
import { LEASE_TOKENS_MAX } from './token-leases.js';

/**
 * One script call per keyed request, or per lease (RateLimiter, token-leases.ts): is the client
 * blocked by its failed authentications, and if not, take `cost` tokens from the key's bucket,
 * and up to `want` in all when the bucket keeps `reserve` after the grant (the unspent tokens of
 * the caller's expired lease, `refund`, are added back first). The same token bucket as
 * TokenBuckets (capacity, refill per ms, a cost above the capacity charged as the capacity), on
 * Redis' clock so that every API process sees one bucket. A hand-written script rather than
 * rate-limiter-flexible: that library counts fixed windows (or needs two limiters for a burst),
 * and the failure check, the charge and the lease would be separate round trips.
 * Returns {0, granted} admitted, {1, pttl} blocked, {2, retry_after_ms} out of tokens.
 */
const ADMIT_SCRIPT = `
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[1]) then
  return {1, redis.call('PTTL', KEYS[1])}
end
local cost = tonumber(ARGV[4])
if cost <= 0 then return {0, 0} end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local capacity = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local want = tonumber(ARGV[5])
local refund = tonumber(ARGV[6])
local reserve = tonumber(ARGV[7])
local state = redis.call('HMGET', KEYS[2], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
if now > at then
  tokens = math.min(capacity, tokens + (now - at) * rate)
  at = now
end
if refund > 0 then tokens = math.min(capacity, tokens + refund) end
if cost > capacity then cost = capacity end
local allowed = tokens >= cost
local granted = 0
if allowed then
  granted = cost
  local spare = math.floor(tokens - cost - reserve)
  if want > cost and spare > 0 then granted = cost + math.min(want - cost, spare) end
  tokens = tokens - granted
end
redis.call('HSET', KEYS[2], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.0f', at))
redis.call('PEXPIRE', KEYS[2], math.ceil((capacity - tokens) / rate) + 1000)
if allowed then return {0, granted} end
return {2, math.ceil((cost - tokens) / rate)}
`;

/** Counts one failed authentication in the client's fixed window; returns {count, pttl}. */
const FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

export type SharedAdmission = { outcome: 'admitted'; grantedTokens: number } | { outcome: 'blocked' | 'rate_limited'; retryAfterMs: number };

interface LimitsCommands {
  ledgerAdmit(failureKey: string, bucketKey: string, failuresMax: number, capacity: number, refillPerMs: string, cost: number, want: number, refund: number, reserve: number): Promise<[number, number]>;
  ledgerFailure(failureKey: string, windowMs: number): Promise<[number, number]>;
}

const BOOT_WAIT_MS = 2_000;
/**
 * Tokens a lease must leave in the shared bucket: below it every process charges request by
 * request, so the last tokens go to whichever replica asks (two leases' worth).
 */
export const LEASE_RESERVE_TOKENS = 2 * LEASE_TOKENS_MAX;

/**
 * Rate-limit buckets and auth-failure windows in Redis, shared by every API process. Keys carry
 * the queue prefix (a hash tag on a Redis Cluster, so the two keys of one call share a slot).
 * Every method throws when Redis cannot answer within its short timeout; the caller
 * (RateLimiter) then falls back to the process's own limits.
 */
@Injectable()
export class SharedLimitsStore implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly redis: RedisClient & LimitsCommands;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const client = createRedis(config, 'limits');
    client.on('error', () => undefined); // counted per request as a fallback, and by /health/ready
    client.defineCommand('ledgerAdmit', { numberOfKeys: 2, lua: ADMIT_SCRIPT });
    client.defineCommand('ledgerFailure', { numberOfKeys: 1, lua: FAILURE_SCRIPT });
    this.redis = client as RedisClient & LimitsCommands;
  }

  /** Commands are never queued while disconnected: a caller asks first and falls back at once. */
  get available(): boolean {
    return this.redis.status === 'ready';
  }

  /** Gives the connection a moment at boot, so the first requests are counted in Redis too. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.available) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, BOOT_WAIT_MS);
      this.redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * `bucket.want`: tokens to take in all (a lease, at least the cost), granted only while the
   * bucket keeps LEASE_RESERVE_TOKENS after it; `bucket.refund`: an expired lease's unspent tokens.
   */
  async admit(
    clientId: string,
    bucket: { name: string; cost: number; want?: number; refund?: number } | null,
    keyId: string,
    failuresMax: number,
    capacity: number,
    refillPerMinute: number,
  ): Promise<SharedAdmission> {
    const refillPerMs = (refillPerMinute / 60_000).toPrecision(17);
    const cost = bucket?.cost ?? 0;
    const [code, ms] = await this.redis.ledgerAdmit(
      this.failureKey(clientId),
      this.bucketKey(bucket?.name ?? 'none', keyId),
      failuresMax,
      capacity,
      refillPerMs,
      cost,
      Math.max(cost, bucket?.want ?? cost),
      bucket?.refund ?? 0,
      LEASE_RESERVE_TOKENS,
    );
    if (code === 0) return { outcome: 'admitted', grantedTokens: ms };
    return { outcome: code === 1 ? 'blocked' : 'rate_limited', retryAfterMs: Math.max(0, ms) };
  }

  /** Counts a failure; returns the failures in the client's current window and its time left. */
  async recordFailure(clientId: string, windowMs: number): Promise<{ count: number; retryAfterMs: number }> {
    const [count, ms] = await this.redis.ledgerFailure(this.failureKey(clientId), windowMs);
    return { count, retryAfterMs: Math.max(0, ms) };
  }

  private failureKey(clientId: string): string {
    return `${this.config.QUEUE_PREFIX}:limits:auth-failures:${clientId}`;
  }

  private bucketKey(name: string, keyId: string): string {
    return `${this.config.QUEUE_PREFIX}:limits:bucket:${name}:${keyId}`;
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }
}
