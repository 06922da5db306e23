// /health/ready watched through an outage (scenarios 3 and 4): polled on a log of its own, so its
// latencies are not mixed with the load's, and the figures every outage record shares.
import { RELIABILITY_ADMIN_KEY } from './built-service.js';
import { AttemptLog, pollReadiness, type Client, type LatencySummary } from './http-client.js';

/** What each outage of a scenario records, whatever it broke; the scenario adds its own figures. */
export interface OutageWindow<How extends string> {
  how: How;
  downMs: number;
  /** Latency of the /health/ready polls started while it was down. */
  readyLatencyMs: LatencySummary;
}

export interface ReadinessProbe {
  /** Admin client on the probe's own log, following the stack's current API. */
  client: Client;
  /** Polls /health/ready until `durationMs` after `sinceMs`: answers by status, and how many said `downCheck` down. */
  poll(input: Parameters<typeof pollReadiness>[1]): ReturnType<typeof pollReadiness>;
  /** Latency of the polls started in [fromMs, toMs). */
  latencyMs(fromMs: number, toMs: number): LatencySummary;
}

export function readinessProbe(stack: { api: { baseUrl: string } }): ReadinessProbe {
  const log = new AttemptLog();
  const client: Client = { baseUrl: () => stack.api.baseUrl, key: RELIABILITY_ADMIN_KEY, log };
  return {
    client,
    poll: (input) => pollReadiness(client, input),
    latencyMs: (fromMs, toMs) => log.summary((a) => a.startedAtMs >= fromMs && a.startedAtMs < toMs).latencyMs,
  };
}
