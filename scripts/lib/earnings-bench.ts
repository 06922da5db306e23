// Latency of GET /v1/contributors/:id/earnings over HTTP, as a client sees it: sequential
// requests (one in flight), after a warm-up, timed from send to the last byte of the body.
import { timedGetJson } from './bench-http.js';
import { DAY_MS, nextUtcMidnight } from './utc-day.js';

export const EARNINGS_BENCH_ITERATIONS_MAX = 100_000;
const WARMUP_ITERATIONS = 20;
const REQUEST_TIMEOUT_MS = 10_000;

export interface EarningsBenchOptions {
  baseUrl: string;
  apiKey: string;
  contributorId: string;
  iterations: number;
  /** Default: the last 30 UTC days, today included (the endpoint's default range). */
  from?: string;
  to?: string;
  groupBy?: 'day' | 'model' | 'day,model';
}

export interface EarningsBenchResult {
  iterations: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** Rows in the answer (the same every iteration). */
  rows: number;
  /** Events summed by the answer (its totals.events). */
  events: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sortedMs: readonly number[], fraction: number): number {
  if (sortedMs.length === 0) throw new Error('no samples');
  const rank = Math.min(sortedMs.length, Math.max(1, Math.ceil(fraction * sortedMs.length)));
  return sortedMs[rank - 1]!;
}

function earningsUrl(o: EarningsBenchOptions): string {
  const to = o.to ?? nextUtcMidnight().toISOString().slice(0, 10);
  const from = o.from ?? new Date(Date.parse(`${to.slice(0, 10)}T00:00:00Z`) - 30 * DAY_MS).toISOString().slice(0, 10);
  const query = new URLSearchParams({ from, to, group_by: o.groupBy ?? 'day' });
  return `${o.baseUrl.replace(/\/$/, '')}/v1/contributors/${encodeURIComponent(o.contributorId)}/earnings?${query}`;
}

const timedRequest = (url: string, apiKey: string) => timedGetJson<{ rows: unknown[]; totals: { events: number } }>(url, apiKey, REQUEST_TIMEOUT_MS, 'earnings query');

/** Measures p50/p99 of the earnings query; throws on any non-200 answer. */
export async function measureEarningsQuery(o: EarningsBenchOptions): Promise<EarningsBenchResult> {
  if (!Number.isInteger(o.iterations) || o.iterations < 1 || o.iterations > EARNINGS_BENCH_ITERATIONS_MAX) {
    throw new Error(`iterations must be an integer in [1, ${EARNINGS_BENCH_ITERATIONS_MAX}]`);
  }
  const url = earningsUrl(o);
  let last = await timedRequest(url, o.apiKey);
  for (let i = 1; i < WARMUP_ITERATIONS; i += 1) await timedRequest(url, o.apiKey);
  const samplesMs: number[] = [];
  for (let i = 0; i < o.iterations; i += 1) {
    last = await timedRequest(url, o.apiKey);
    samplesMs.push(last.ms);
  }
  samplesMs.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    iterations: o.iterations,
    p50Ms: round(percentile(samplesMs, 0.5)),
    p99Ms: round(percentile(samplesMs, 0.99)),
    meanMs: round(samplesMs.reduce((a, b) => a + b, 0) / samplesMs.length),
    maxMs: round(samplesMs.at(-1)!),
    rows: last.body.rows.length,
    events: last.body.totals.events,
  };
}
