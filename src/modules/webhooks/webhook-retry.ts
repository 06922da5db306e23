// What happens after a delivery attempt: pure, one object parameter, time and randomness passed in.

/** Each retry waits about this many times longer than the one before. */
export const RETRY_GROWTH_FACTOR = 3;
/** The longest wait between two attempts (then hourly-ish until the deadline). */
export const RETRY_DELAY_MAX_MS = 2 * 3600_000;
/** Each wait is scaled by a random factor in [1 - JITTER, 1 + JITTER], so retries of many
 * deliveries that failed together (an outage) do not come back together. */
export const RETRY_JITTER = 0.2;
/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const ENDPOINT_FAILING_DISABLE_MS = 24 * 3600_000;

export interface AttemptResult {
  /** HTTP status of the answer; null when there was none (timeout, refused address, reset). */
  statusCode: number | null;
  error: string | null;
}

export function isDelivered(result: AttemptResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode <= 299;
}

/** The wait after the n-th failed attempt (n >= 1), before jitter. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  return Math.min(baseMs * RETRY_GROWTH_FACTOR ** exponent, RETRY_DELAY_MAX_MS);
}

export type DeliveryDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; nextAttemptAt: Date }
  | { kind: 'failed'; reason: string };

/**
 * After a failed attempt: retry with exponential backoff and jitter, never later than the
 * deadline (a last attempt lands on it), and fail once an attempt at or past the deadline fails.
 * `random` is in [0, 1).
 */
export function decideAfterAttempt(input: { result: AttemptResult; attempt: number; now: Date; deadline: Date; baseMs: number; random: number }): DeliveryDecision {
  if (isDelivered(input.result)) return { kind: 'delivered' };
  const nowMs = input.now.getTime();
  const deadlineMs = input.deadline.getTime();
  if (nowMs >= deadlineMs) return { kind: 'failed', reason: `still failing after ${input.attempt} attempts, past the retry deadline` };
  const jitter = 1 - RETRY_JITTER + 2 * RETRY_JITTER * input.random;
  const waitMs = Math.max(1, Math.round(retryDelayMs(input.attempt, input.baseMs) * jitter));
  return { kind: 'retry', nextAttemptAt: new Date(Math.min(nowMs + waitMs, deadlineMs)) };
}

export type EndpointHealth =
  | { kind: 'healthy' }
  | { kind: 'failing'; failingSince: Date }
  | { kind: 'disable'; failingSince: Date; reason: string };

function describe(result: AttemptResult): string {
  return result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'no answer');
}

/**
 * The endpoint after an attempt. A success clears the failure streak. A failure starts one (or
 * continues it); an endpoint failing for a day, or answering 410 Gone (Standard Webhooks: the
 * receiver wants no more), is disabled with a reason the admin sees.
 */
export function endpointHealthAfter(input: { result: AttemptResult; failingSince: Date | null; now: Date }): EndpointHealth {
  if (isDelivered(input.result)) return { kind: 'healthy' };
  const failingSince = input.failingSince ?? input.now;
  if (input.result.statusCode === 410) return { kind: 'disable', failingSince, reason: 'the endpoint answered 410 Gone' };
  if (input.now.getTime() - failingSince.getTime() >= ENDPOINT_FAILING_DISABLE_MS) {
    return { kind: 'disable', failingSince, reason: `every delivery failed since ${failingSince.toISOString()} (last: ${describe(input.result)})` };
  }
  return { kind: 'failing', failingSince };
}
