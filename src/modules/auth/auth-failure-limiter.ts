import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DomainError } from '../../common/errors/index.js';

const WINDOW_MS = 60_000;
const CLIENTS_TRACKED_MAX = 50_000;

/** Slows key guessing: too many failed authentications from one client in a minute -> 429. */
@Injectable()
export class AuthFailureLimiter {
  private readonly failures = new Map<string, { count: number; windowStartMs: number }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  assertNotBlocked(clientId: string): void {
    const entry = this.failures.get(clientId);
    if (!entry || Date.now() - entry.windowStartMs > WINDOW_MS) return;
    if (entry.count >= this.config.AUTH_FAILURES_PER_MINUTE) {
      throw new DomainError('rate_limited', 'too many failed authentications, retry later');
    }
  }

  recordFailure(clientId: string): void {
    const now = Date.now();
    const entry = this.failures.get(clientId);
    if (!entry || now - entry.windowStartMs > WINDOW_MS) {
      if (this.failures.size >= CLIENTS_TRACKED_MAX) this.failures.clear();
      this.failures.set(clientId, { count: 1, windowStartMs: now });
      return;
    }
    entry.count += 1;
  }
}
