// What a single-event load window's latency is made of, from the API's own /metrics scraped before
// and after the window (issue 35: "p99 < 50 ms at 64 clients"): the group commits (how many, how
// large, how long), V8's garbage collection pauses by kind, and the event loop's delay. A request
// waits for the group commit that carries its event, behind at most the ones already in flight;
// a GC pause or a long loop turn stalls every request in the process at once.

/** One scrape: histogram buckets, sums and counts, and gauges, by series name with labels. */
export type MetricsScrape = Map<string, number>;

export async function scrapeMetrics(baseUrl: string): Promise<MetricsScrape> {
  const response = await fetch(`${baseUrl}/metrics`);
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** Prometheus text format: `name{labels} value` per line, comments skipped. */
export function parsePrometheusText(text: string): MetricsScrape {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const value = Number(line.slice(space + 1));
    if (Number.isFinite(value)) series.set(line.slice(0, space), value);
  }
  return series;
}

export interface LatencyBreakdown {
  groupCommits: number;
  eventsPerGroup: number;
  groupCommitMeanMs: number;
  /** Share of the window's group commits that took longer than 25 ms / 50 ms (bucket bounds). */
  groupCommitsOver25Ms: number;
  groupCommitsOver50Ms: number;
  /** GC pauses in the window by kind (minor = scavenge, major = mark-compact, incremental marking steps). */
  gc: Array<{ kind: string; count: number; totalMs: number }>;
  /** Event loop delay at the end of the window (prom-client resets it at each scrape: the window's). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

const delta = (before: MetricsScrape, after: MetricsScrape, name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);

export function latencyBreakdown(before: MetricsScrape, after: MetricsScrape): LatencyBreakdown {
  const groupCommits = delta(before, after, 'usage_group_commit_duration_seconds_count');
  const events = delta(before, after, 'usage_group_commit_events_sum');
  const seconds = delta(before, after, 'usage_group_commit_duration_seconds_sum');
  const over = (le: string) => (groupCommits === 0 ? 0 : 1 - delta(before, after, `usage_group_commit_duration_seconds_bucket{le="${le}"}`) / groupCommits);
  const kinds = ['minor', 'major', 'incremental', 'weakcb'];
  return {
    groupCommits,
    eventsPerGroup: groupCommits === 0 ? 0 : events / groupCommits,
    groupCommitMeanMs: groupCommits === 0 ? 0 : (seconds / groupCommits) * 1000,
    groupCommitsOver25Ms: over('0.025'),
    groupCommitsOver50Ms: over('0.05'),
    gc: kinds
      .map((kind) => ({
        kind,
        count: delta(before, after, `nodejs_gc_duration_seconds_count{kind="${kind}"}`),
        totalMs: delta(before, after, `nodejs_gc_duration_seconds_sum{kind="${kind}"}`) * 1000,
      }))
      .filter((k) => k.count > 0),
    loopDelayP99Ms: (after.get('nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000,
    loopDelayMaxMs: (after.get('nodejs_eventloop_lag_max_seconds') ?? 0) * 1000,
  };
}

export function describeLatency(b: LatencyBreakdown, windowS: number): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const gc = b.gc.map((k) => `${k.kind} ${k.count} (${k.totalMs.toFixed(0)} ms, ${pct(k.totalMs / 1000 / windowS)} of the window)`).join(', ');
  return (
    `${b.groupCommits} group commits of ${b.eventsPerGroup.toFixed(1)} events on average, ${b.groupCommitMeanMs.toFixed(1)} ms each` +
    ` (${pct(b.groupCommitsOver25Ms)} over 25 ms, ${pct(b.groupCommitsOver50Ms)} over 50 ms); GC pauses: ${gc || 'none'};` +
    ` event loop delay p99 ${b.loopDelayP99Ms.toFixed(1)} ms, max ${b.loopDelayMaxMs.toFixed(1)} ms`
  );
}
