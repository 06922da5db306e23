// Token buckets keyed by a string (one per API key and limit), in memory, bounded. Pure: no Nest,
// time injected. Tokens are request-cost units (events), not money, so plain numbers are fine.

export interface TokenBucketOptions {
  /** Most tokens a bucket holds: the burst a key may spend at once. */
  capacity: number;
  /** Tokens added per minute (the sustained rate). */
  refillPerMinute: number;
  /** Most keys tracked at once; past it, idle buckets and then the least recently used go first. */
  keysTrackedMax: number;
}

export type TakeResult = { allowed: true; remaining: number } | { allowed: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

const MS_PER_MINUTE = 60_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly options: TokenBucketOptions,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (!(options.capacity >= 1 && options.refillPerMinute >= 1 && options.keysTrackedMax >= 1)) {
      throw new RangeError('token bucket capacity, refill and key cap must be at least 1');
    }
    this.refillPerMs = options.refillPerMinute / MS_PER_MINUTE;
  }

  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes `cost` tokens from `key`'s bucket if it holds them. A cost above the capacity is charged
   * as the whole capacity: such a request needs a full bucket and empties it (it is never refused
   * forever).
   */
  take(key: string, cost: number): TakeResult {
    const now = this.nowMs();
    const bucket = this.refreshed(key, now);
    const charged = Math.min(Math.max(cost, 0), this.options.capacity);
    if (bucket.tokens >= charged) {
      bucket.tokens -= charged;
      return { allowed: true, remaining: Math.floor(bucket.tokens) };
    }
    return { allowed: false, retryAfterMs: Math.ceil((charged - bucket.tokens) / this.refillPerMs) };
  }

  /** The key's bucket refilled up to now, moved to the most recently used end of the map. */
  private refreshed(key: string, now: number): Bucket {
    const existing = this.buckets.get(key);
    if (existing) {
      this.buckets.delete(key);
      // A clock that steps back never adds tokens.
      const elapsedMs = Math.max(0, now - existing.updatedAtMs);
      existing.tokens = Math.min(this.options.capacity, existing.tokens + elapsedMs * this.refillPerMs);
      existing.updatedAtMs = now;
      this.buckets.set(key, existing);
      return existing;
    }
    if (this.buckets.size >= this.options.keysTrackedMax) this.evict(now);
    const created = { tokens: this.options.capacity, updatedAtMs: now };
    this.buckets.set(key, created);
    return created;
  }

  /**
   * Makes room for one key. A bucket that has refilled completely is the same as no bucket, so
   * those go first at no cost to anyone; only if every tracked key is busy does the least recently
   * used lose its state (it starts again with a full bucket: lenient, never stricter).
   */
  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + Math.max(0, now - bucket.updatedAtMs) * this.refillPerMs >= this.options.capacity) this.buckets.delete(key);
    }
    // Free a tenth at once, so a stream of new keys does not pay a full scan each.
    const keepMax = this.options.keysTrackedMax - Math.max(1, Math.floor(this.options.keysTrackedMax / 10));
    while (this.buckets.size > keepMax) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
  }
}
