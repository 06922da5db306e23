import fc from 'fast-check';
import type { LoadResult } from '../../scripts/lib/bench-http.js';
import { renderMarkdown, type StreamAuditFigure } from '../../scripts/lib/bench-report.js';
import { compareTwoApi, cpuPerEventUs, medianByRate, renderTwoApiTable, roundRobinTargets, type ApiPhaseRun, type TwoApiComparison } from '../../scripts/lib/bench-two-api.js';
import { reportFigures } from './support/bench-figures.js';

function load(eventsPerSecond: number, p99 = 20): LoadResult {
  return { seconds: 10, requests: eventsPerSecond * 10, non2xx: 0, errors: 0, pricedEvents: eventsPerSecond * 10, notPricedEvents: 0, eventsPerSecond, latencyP50Ms: p99 / 4, latencyP99Ms: p99 };
}

function run(apis: number, eventsPerSecond: number, each: number[], postgres = 0.5, redis = 0.1, p99 = 20): ApiPhaseRun {
  const apiCores = each.reduce((a, b) => a + b, 0);
  return { apis, load: load(eventsPerSecond, p99), cpu: { apiCores, apiCoresEach: each, postgresCores: postgres, loadGeneratorCores: 0.2, otherCores: redis + 0.05, redisCores: redis, apiRssPeakBytes: 200 * 2 ** 20 } };
}

describe('roundRobinTargets (the two-API phase client)', () => {
  it('gives every API the same number of connections, alternating', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 40 }), (apis, perApi) => {
        const urls = Array.from({ length: apis }, (_, i) => `http://127.0.0.1:${3000 + i}`);
        const targets = roundRobinTargets(urls, apis * perApi);
        expect(targets).toHaveLength(apis * perApi);
        for (const url of urls) expect(targets.filter((t) => t === url)).toHaveLength(perApi);
        targets.forEach((t, i) => expect(t).toBe(urls[i % apis]));
      }),
    );
  });

  it('refuses an uneven split, no API, the same API twice and a bad count', () => {
    expect(() => roundRobinTargets(['http://a', 'http://b'], 5)).toThrow('do not split evenly');
    expect(() => roundRobinTargets([], 4)).toThrow('no API');
    expect(() => roundRobinTargets(['http://a', 'http://a'], 4)).toThrow('same API twice');
    expect(() => roundRobinTargets(['http://a'], 0)).toThrow('positive integer');
    expect(() => roundRobinTargets(['http://a'], 1.5)).toThrow('positive integer');
  });
});

describe('two-API figures', () => {
  it('medianByRate picks the middle run by events/s and keeps every run in order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 9 }), (rates) => {
        const m = medianByRate(rates.map((r) => ({ load: load(r) })));
        const sorted = [...rates].sort((a, b) => a - b);
        expect(m.load.eventsPerSecond).toBe(sorted[Math.floor((sorted.length - 1) / 2)]);
        expect(m.runsEventsPerSecond).toEqual(rates);
      }),
    );
    expect(() => medianByRate([])).toThrow('no run');
  });

  it('CPU per event is cores / rate in microseconds, none without events', () => {
    const us = cpuPerEventUs(run(2, 5000, [0.4, 0.35], 0.5, 0.1))!;
    expect(us.api).toBeCloseTo(150, 6);
    expect(us.postgres).toBeCloseTo(100, 6);
    expect(us.redis).toBeCloseTo(20, 6);
    expect(us.loadGenerator).toBeCloseTo(40, 6);
    expect(us.service).toBeCloseTo(250, 6);
    expect(cpuPerEventUs(run(1, 0, [0.1]))).toBeNull();
  });

  it('compares the median runs of one and two APIs', () => {
    const one = [run(1, 4000, [0.7]), run(1, 5000, [0.75], 0.5, 0.1, 40), run(1, 6000, [0.8])];
    const two = [run(2, 5500, [0.45, 0.45], 0.6, 0.12, 60), run(2, 5000, [0.4, 0.4]), run(2, 6500, [0.5, 0.5])];
    const c = compareTwoApi('single', 64, one, two);
    expect(c.one.load.eventsPerSecond).toBe(5000);
    expect(c.two.load.eventsPerSecond).toBe(5500);
    expect(c.speedup).toBeCloseTo(1.1, 9);
    expect(c.p99Ratio).toBeCloseTo(1.5, 9);
    expect(c.twoUs!.api).toBeCloseTo((0.9 / 5500) * 1e6, 6);
    expect(c.two.runsEventsPerSecond).toEqual([5500, 5000, 6500]);
    expect(() => compareTwoApi('single', 64, two, one)).toThrow('wrong process count');
  });

  it('renders one row per workload and process count with the per-process API cores', () => {
    const c = compareTwoApi('batch 1000', 4, [run(1, 20000, [0.8])], [run(2, 22000, [0.5, 0.45])]);
    const table = renderTwoApiTable([c]).split('\n');
    expect(table).toHaveLength(4);
    expect(table[2]).toContain('| batch 1000, 4 clients | 1 | 20,000 | 1.00x |');
    expect(table[3]).toContain('| batch 1000, 4 clients | 2 | 22,000 | 1.10x |');
    expect(table[3]).toContain('| 0.50 + 0.45 |');
  });
});

describe('docs/performance.md with the two-API phase', () => {
  const figures = (twoApi: TwoApiComparison[] | undefined) =>
    reportFigures({ quick: true, durationS: 5, batchRun: run(1, 20_000, [0.8]), singleRun: run(1, 5000, [0.75]), phases: { twoApi } });

  it('has a "Two API processes" section with both workloads and the single-event CPU per event', () => {
    const twoApi = [
      compareTwoApi('batch 1000', 4, [run(1, 20_000, [0.8])], [run(2, 22_000, [0.5, 0.45])]),
      compareTwoApi('single', 64, [run(1, 5000, [0.75], 0.5, 0.1)], [run(2, 5500, [0.45, 0.45], 0.6, 0.1)]),
    ];
    const md = renderMarkdown(figures(twoApi), 'chart.png');
    const section = md.slice(md.indexOf('## Two API processes'), md.indexOf('## Delivery checks'));
    expect(section).toContain('| batch 1000, 4 clients | 2 | 22,000 | 1.10x |');
    expect(section).toContain('| single, 64 clients | 2 | 5,500 | 1.10x |');
    // 0.75 cores / 5,000 events/s = 150 us; 0.9 / 5,500 = 164 us.
    expect(section).toContain('API 150 -> 164 us');
    expect(md).toContain('--only two-api');
  });

  it('leaves the section out for figures of a run without it (--render-from an older run)', () => {
    expect(renderMarkdown(figures(undefined), 'chart.png')).not.toContain('## Two API processes');
  });

  it('has the stream-audit rows (audit off vs on CPU per event, the worker\'s audit vs the ingestion) when the run measured them', () => {
    const streamAudit: StreamAuditFigure = {
      connections: 32,
      rounds: 2,
      streamsPerPhase: { off: 2500, on: 5000 },
      meanBodyBytes: 39_362,
      meanCompletionTokens: 262,
      runs: [],
      off: { apiUs: 3690, totalUs: 4327, eventsPerSecond: 106 },
      on: { apiUs: 3416, totalUs: 4047, eventsPerSecond: 126 },
      audit: { streams: 10_000, ingestionSeconds: 79.2, workerSeconds: 12.2, countingSeconds: 10.6, workerCpuSeconds: 3.8 },
      loadAvgStart: [1, 1, 1],
      loadAvgEnd: [1, 1, 1],
    };
    const md = renderMarkdown({ ...figures(undefined), streamAudit }, 'chart.png');
    expect(md).toContain('| 3690 us / 3416 us | 0.926x | <= 1.03x | yes |');
    expect(md).toContain('| 12.2 s vs 79.2 s | 0.15x of ingestion | < 1.00x of ingestion | yes |');
    expect(md).toContain('--only stream-audit');
    expect(renderMarkdown(figures(undefined), 'chart.png')).not.toContain('usage audit off / on');
  });
});
