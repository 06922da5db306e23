import { describeLatency, latencyBreakdown, parsePrometheusText } from '../../scripts/lib/bench-latency.js';
import { MetricsService } from '../../src/modules/health/metrics.service.js';

describe("the single phase's latency breakdown from the API's /metrics (issue 35's p99)", () => {
  it('counts only what happened between the two scrapes: group commits, their sizes and durations', async () => {
    const metrics = new MetricsService();
    metrics.groupCommitEvents.observe(500);
    metrics.groupCommitDuration.observe(2);
    const before = parsePrometheusText(await metrics.registry.metrics());
    // The window: four group commits of 10, 20, 30 and 40 events, 4 ms, 20 ms, 30 ms and 80 ms.
    for (const [events, seconds] of [
      [10, 0.004],
      [20, 0.02],
      [30, 0.03],
      [40, 0.08],
    ] as const) {
      metrics.groupCommitEvents.observe(events);
      metrics.groupCommitDuration.observe(seconds);
    }
    const b = latencyBreakdown(before, parsePrometheusText(await metrics.registry.metrics()));
    expect(b.groupCommits).toBe(4);
    expect(b.eventsPerGroup).toBeCloseTo(25, 9);
    expect(b.groupCommitMeanMs).toBeCloseTo(33.5, 6);
    expect(b.groupCommitsOver25Ms).toBeCloseTo(0.5, 9);
    expect(b.groupCommitsOver50Ms).toBeCloseTo(0.25, 9);
    expect(b.loopDelayMaxMs).toBeGreaterThanOrEqual(0);
    const text = describeLatency(b, 10);
    expect(text).toContain('4 group commits of 25.0 events on average, 33.5 ms each (50.0% over 25 ms, 25.0% over 50 ms)');
  });

  it('reads GC pauses by kind as the difference of the two scrapes', () => {
    const before = parsePrometheusText(['# HELP x', 'nodejs_gc_duration_seconds_count{kind="minor"} 10', 'nodejs_gc_duration_seconds_sum{kind="minor"} 0.05', ''].join('\n'));
    const after = parsePrometheusText(
      [
        'nodejs_gc_duration_seconds_count{kind="minor"} 30',
        'nodejs_gc_duration_seconds_sum{kind="minor"} 0.25',
        'nodejs_gc_duration_seconds_count{kind="major"} 2',
        'nodejs_gc_duration_seconds_sum{kind="major"} 0.06',
        'nodejs_eventloop_lag_p99_seconds 0.0123',
        'nodejs_eventloop_lag_max_seconds 0.0456',
      ].join('\n'),
    );
    const b = latencyBreakdown(before, after);
    expect(b.gc).toEqual([
      { kind: 'minor', count: 20, totalMs: expect.closeTo(200, 6) },
      { kind: 'major', count: 2, totalMs: expect.closeTo(60, 6) },
    ]);
    expect(b.groupCommits).toBe(0);
    expect(describeLatency(b, 10)).toContain('minor 20 (200 ms, 2.0% of the window), major 2 (60 ms, 0.6% of the window); event loop delay p99 12.3 ms, max 45.6 ms');
  });
});
