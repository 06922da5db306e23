// Retries for the ledger's idempotent requests: exponential backoff with full jitter (AWS
// Architecture Blog, "Exponential Backoff And Jitter"), at least what Retry-After asks for.
// Every write the SDK makes carries its own id (event_id, hold_id, reference), so a retried write
// is a replay the server answers 200 without billing twice.

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attemptsMax: number;
  baseDelayMs: number;
  delayMaxMs: number;
  /** A Retry-After longer than this is not waited for: the request fails (and an outbox keeps it). */
  retryAfterMaxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attemptsMax: 4, baseDelayMs: 100, delayMaxMs: 5_000, retryAfterMaxMs: 30_000 };

/** Statuses worth another attempt: too many requests, and the server's own failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504 || status === 500;
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1), or null when no attempt is left or
 * the server asks for longer than the policy waits. `random` in [0, 1) is injected for tests.
 */
export function retryDelayMs(input: { policy: RetryPolicy; attempt: number; retryAfterMs?: number; random: number }): number | null {
  const { policy, attempt, retryAfterMs, random } = input;
  if (attempt >= policy.attemptsMax) return null;
  if (retryAfterMs !== undefined && retryAfterMs > policy.retryAfterMaxMs) return null;
  const ceilingMs = Math.min(policy.delayMaxMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jitteredMs = Math.floor(random * ceilingMs);
  return Math.max(jitteredMs, retryAfterMs ?? 0);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3); undefined if absent or unreadable. */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const dateMs = Date.parse(trimmed);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}
