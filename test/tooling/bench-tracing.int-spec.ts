import type { LoadResult } from '../../scripts/lib/bench-http.js';
import { renderMarkdown } from '../../scripts/lib/bench-report.js';
import { compareTracing, pooledCpuPerEventUs, tracingLine, tracingRunOrder, type TracingComparison } from '../../scripts/lib/bench-tracing.js';
import type { ApiPhaseRun } from '../../scripts/lib/bench-two-api.js';
import { reportFigures } from './support/bench-figures.js';

function run(eventsPerSecond: number, apiCores: number, postgresCores: number, seconds = 10): ApiPhaseRun {
  const load: LoadResult = { seconds, requests: eventsPerSecond * seconds, non2xx: 0, errors: 0, pricedEvents: eventsPerSecond * seconds, notPricedEvents: 0, eventsPerSecond, latencyP50Ms: 5, latencyP99Ms: 20 };
  return { apis: 1, load, cpu: { apiCores, apiCoresEach: [apiCores], postgresCores, loadGeneratorCores: 0.2, otherCores: 0.1, redisCores: 0.05, apiRssPeakBytes: 2 ** 27 } };
}

describe('the tracing phase of the bench (issue 28)', () => {
  it('pools CPU per event over the runs of a side (CPU seconds over events, not a mean of ratios)', () => {
    // 10 s at 1,000 events/s with 0.2 + 0.1 cores, then 10 s at 3,000 events/s with 0.3 + 0.3 cores:
    // (2 + 3) s of API over 40,000 events = 125 us; (1 + 3) s of Postgres = 100 us.
    const side = pooledCpuPerEventUs([run(1000, 0.2, 0.1), run(3000, 0.3, 0.3)]);
    expect(side.api).toBeCloseTo(125, 6);
    expect(side.postgres).toBeCloseTo(100, 6);
    expect(side.service).toBeCloseTo(225, 6);
    expect(side.eventsPerSecond).toEqual([1000, 3000]);
    expect(() => pooledCpuPerEventUs([])).toThrow('no run');
  });

  it('sets on against off with the issue\'s targets, and alternates the order round after round', () => {
    const batch = compareTracing('batch 1000', 4, [run(20_000, 0.8, 0.6)], [run(20_000, 0.9, 0.62)]);
    expect(batch.off.service).toBeCloseTo(70, 6);
    expect(batch.on.service).toBeCloseTo(76, 6);
    expect(batch.ratio).toBeCloseTo(76 / 70, 9);
    expect(batch.target).toBe(1.1);
    expect(tracingLine(batch)).toContain('on/off 1.086x (target <= 1.10x) MET');
    const single = compareTracing('single', 64, [run(4000, 0.6, 0.4)], [run(4000, 0.8, 0.4)]);
    expect(single.target).toBe(1.15);
    expect(tracingLine(single)).toContain('NOT MET');
    expect([1, 2, 3, 4].map(tracingRunOrder)).toEqual([['off', 'on'], ['on', 'off'], ['off', 'on'], ['on', 'off']]);
  });

  it('puts one Results row per ratio and a section into docs/performance.md, none for older runs', () => {
    const figures = (tracing: TracingComparison[] | undefined) =>
      reportFigures({ quick: false, durationS: 15, batchRun: run(20_000, 0.8, 0.6), singleRun: run(4000, 0.6, 0.4), phases: { tracing } });
    const md = renderMarkdown(figures([
      compareTracing('batch 1000', 4, [run(20_000, 0.8, 0.6)], [run(20_000, 0.9, 0.62)]),
      compareTracing('single', 64, [run(4000, 0.6, 0.4)], [run(4000, 0.8, 0.4)]),
    ]), 'chart.png');
    expect(md).toContain('| Tracing on / off, batch 1000 (CPU per event, API + Postgres, us) | 70 -> 76 | 1.086x | <= 1.10x | yes |');
    // (0.6 + 0.4) / 4,000 = 250 us; (0.8 + 0.4) / 4,000 = 300 us.
    expect(md).toContain('| Tracing on / off, single (CPU per event, API + Postgres, us) | 250 -> 300 | 1.200x | <= 1.15x | **no** |');
    const section = md.slice(md.indexOf('## Tracing off and on'), md.indexOf('## Delivery checks'));
    expect(section).toContain('| single, 64 clients | on | 4,000 | 20 ms | 200 / 100 / 300 us | 1.200x | <= 1.15x |');
    expect(md).toContain('--only tracing');
    const older = renderMarkdown(figures(undefined), 'chart.png');
    expect(older).not.toContain('## Tracing off and on');
    expect(older).not.toContain('Tracing on / off');
  });
});
