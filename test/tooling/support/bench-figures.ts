// The figures of a made-up bench run on a 2-core machine, for the tests of the report renderer
// (scripts/lib/bench-report.ts): each test passes the runs of its own phase and the part it is
// about (tracing, twoApi); the rest is the same everywhere and not under test.
import type { BenchFigures } from '../../../scripts/lib/bench-report.js';
import type { ApiPhaseRun } from '../../../scripts/lib/bench-two-api.js';

/** A single-event ingestion figure as the bench records it, from one run at 64 connections. */
const ingestionFigure = (r: ApiPhaseRun) => ({ connections: 64, load: r.load, cpu: r.cpu, storedPriced: r.load.pricedEvents, storedOther: 0, runsEventsPerSecond: [r.load.eventsPerSecond] });

export function reportFigures(input: {
  quick: boolean;
  durationS: number;
  /** Batch 1000 at 4 connections. */
  batchRun: ApiPhaseRun;
  singleRun: ApiPhaseRun;
  phases: Pick<BenchFigures, 'tracing' | 'twoApi'>;
}): BenchFigures {
  return {
    quick: input.quick,
    startedAt: new Date('2026-12-01T13:00:00Z'),
    finishedAt: new Date('2026-12-01T13:05:00Z'),
    machine: { cores: 2, cpuModel: 'test', memoryBytes: 2 ** 34, node: 'v20', postgres: 'PostgreSQL 15', loadAvgStart: [1, 1, 1], loadAvgEnd: [1, 1, 1] },
    durationS: input.durationS,
    raw: { copyRowsPerSecond: 200_000, unnestRowsPerSecond: 100_000, singleInsertRowsPerSecond: 3000, copyRows: 1, unnestRows: 1, singleInsertRows: 1 },
    batch: [{ ...ingestionFigure(input.batchRun), size: 1000, connections: 4 }],
    single: ingestionFigure(input.singleRun),
    ...input.phases,
    earnings: { skipped: 'test' },
    gas: { recipientCount: 10, batchPayout: { newHolders: 27_000, existingHolders: 10_000 }, disperseToken: { newHolders: 27_200, existingHolders: 10_100 }, disperseTokenSimple: { newHolders: 27_600, existingHolders: 10_500 }, singleTransfer: { newHolders: 53_700, existingHolders: 36_600 } },
    rss: { idleBytes: 2 ** 27, peakBytes: 2 ** 28, samples: 10 },
  } as BenchFigures;
}
