import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { RateLimitedError } from '../../common/errors/index.js';

export const AUTH_FAILURE_WINDOW_MS = 60_000;
export const AUTH_FAILURE_CLIENTS_TRACKED_MAX = 50_000;
/** Eviction frees a tenth of the table at once, so its full scans stay rare under a spray. */
const EVICT_DOWN_TO = AUTH_FAILURE_CLIENTS_TRACKED_MAX - AUTH_FAILURE_CLIENTS_TRACKED_MAX / 10;

interface FailureWindow {
  count: number;
  windowStartMs: number;
}

/**
 * Slows key guessing: too many failed authentications from one client (socket address) in a
 * fixed one-minute window -> 429 for every keyed request from that client until the window ends.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly failures = new Map<string, FailureWindow>();
  /** The clock; tests replace it. */
  nowMs: () => number = Date.now;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get clientsTracked(): number {
    return this.failures.size;
  }

  assertNotBlocked(clientId: string): void {
    const now = this.nowMs();
    const entry = this.failures.get(clientId);
    if (!entry || this.expired(entry, now)) return;
    if (entry.count >= this.config.AUTH_FAILURES_PER_MINUTE) {
      const retryAfterMs = entry.windowStartMs + AUTH_FAILURE_WINDOW_MS - now;
      throw new RateLimitedError('too many failed authentications, retry later', retryAfterMs / 1000);
    }
  }

  recordFailure(clientId: string): void {
    const now = this.nowMs();
    const entry = this.failures.get(clientId);
    if (entry && !this.expired(entry, now)) {
      entry.count += 1;
      return;
    }
    this.failures.delete(clientId);
    if (this.failures.size >= AUTH_FAILURE_CLIENTS_TRACKED_MAX) this.evict(now);
    this.failures.set(clientId, { count: 1, windowStartMs: now });
  }

  private expired(entry: FailureWindow, now: number): boolean {
    return now - entry.windowStartMs >= AUTH_FAILURE_WINDOW_MS;
  }

  /**
   * Bounded memory without amnesty: a full table used to be cleared, so a client spraying failures
   * from many addresses (easy with IPv6) could unblock itself and everyone else. Now expired
   * windows go first, then the oldest clients that are not blocked, and a blocked client only
   * when every tracked client is blocked.
   */
  private evict(now: number): void {
    for (const [client, entry] of this.failures) {
      if (this.expired(entry, now)) this.failures.delete(client);
    }
    for (const [client, entry] of this.failures) {
      if (this.failures.size <= EVICT_DOWN_TO) return;
      if (entry.count < this.config.AUTH_FAILURES_PER_MINUTE) this.failures.delete(client);
    }
    for (const client of this.failures.keys()) {
      if (this.failures.size <= EVICT_DOWN_TO) return;
      this.failures.delete(client);
    }
  }
}
