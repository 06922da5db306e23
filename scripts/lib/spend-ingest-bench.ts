// npm run bench -- --only spend (issue 37: "budgets add nothing measurable to usage ingestion,
// same-run bench, within 5% CPU per event"). One API, one database: half of the bench users get
// 10 budgets each (their events also write the spend rollup), the other half none; single events
// (the one-statement write) and batches of 100 (more than 64 events: the transaction path) of one
// half then the other, ABBA over the rounds, CPU per event of the API and of Postgres pooled per
// side. docs/spend-controls.md "Cost on ingestion" has the figures.
import { loadavg } from 'node:os';
import { BATCH_CONNECTIONS, BENCH_USERS, benchUserId, call, runBatchLoad, runSingleLoad, SINGLE_CONNECTIONS, type AdminApi, type BenchUsers, type LoadResult } from './bench-http.js';
import type { ApiPhaseRun, MultiApiCpu } from './bench-two-api.js';
import { pooledCpuPerEventUs, tracingRunOrder, type TracingSideUs } from './bench-tracing.js';

/** Issue 37's ceiling: with budgets / without, API + Postgres CPU per event. */
export const SPEND_TARGET_RATIO = 1.05;
export const SPEND_BATCH_SIZE = 100;
export type SpendWorkload = 'single' | `batch ${typeof SPEND_BATCH_SIZE}`;

export interface SpendComparison {
  workload: SpendWorkload;
  without: TracingSideUs;
  with: TracingSideUs;
  /** with / without, API + Postgres CPU per event. */
  ratio: number;
}

export interface SpendBenchFigures {
  durationS: number;
  rounds: number;
  loadAvgStart: number[];
  loadAvgEnd: number[];
  comparisons: SpendComparison[];
}

/** The 10 budgets of a user with budgets: the mix of periods and scopes bench:spend times. */
const BUDGETS = [
  { period: 'day' },
  { period: 'week', key_id: 'k1' },
  { period: 'month', model: 'gpt-4o' },
  { period: 'total' },
  { period: 'day', key_id: 'k1' },
  { period: 'week' },
  { period: 'month', model: 'gpt-4o-mini' },
  { period: 'day', key_id: 'k2' },
  { period: 'week', key_id: 'k3', model: 'gpt-4o' },
  { period: 'month' },
] as const;

export interface SpendBenchDeps {
  api: AdminApi & { key: string };
  durationS: number;
  rounds: number;
  /** Starts the CPU meters of the API and Postgres (bench.ts startCpuMeters). */
  meter: () => { stop(): MultiApiCpu };
  /** Throws unless every event of the run was priced and the API still runs. */
  assertClean: (phase: string, load: LoadResult) => void;
  /** Waits until the previous run's writes have settled. */
  settle: () => Promise<unknown>;
  log: (line: string) => void;
}

export async function measureSpendIngestion(deps: SpendBenchDeps): Promise<SpendBenchFigures> {
  const loadAvgStart = loadavg();
  const half = Math.floor(BENCH_USERS / 2);
  const sides: Record<'without' | 'with', BenchUsers> = {
    without: { userIds: Array.from({ length: half }, (_, i) => benchUserId(i)) },
    with: { userIds: Array.from({ length: BENCH_USERS - half }, (_, i) => benchUserId(half + i)) },
  };
  for (const userId of sides.with.userIds) {
    for (const [i, budget] of BUDGETS.entries()) {
      await call(deps.api, 'PUT', `/v1/admin/users/${userId}/budgets/b${i}`, { limit_usd: '1000000', action: i % 2 === 0 ? 'block' : 'notify', alert_at: ['0.8'], ...budget }, [201]);
    }
  }
  deps.log(`spend: ${sides.with.userIds.length} users with ${BUDGETS.length} budgets each, ${sides.without.userIds.length} without; ${deps.rounds} round(s) of ${deps.durationS} s per run, ABBA`);
  const runs: Record<SpendWorkload, Record<'without' | 'with', ApiPhaseRun[]>> = { single: { without: [], with: [] }, 'batch 100': { without: [], with: [] } };
  for (let round = 1; round <= deps.rounds; round += 1) {
    for (const workload of ['single', 'batch 100'] as const) {
      for (const side of tracingRunOrder(round).map((s) => (s === 'off' ? 'without' : 'with'))) {
        await deps.settle();
        const meters = deps.meter();
        const prefix = `spend-${side}-${workload === 'single' ? 's' : 'b'}r${round}`;
        const load =
          workload === 'single'
            ? await runSingleLoad({ baseUrl: deps.api.baseUrl, key: deps.api.key, connections: SINGLE_CONNECTIONS, durationS: deps.durationS, prefix, users: sides[side] })
            : await runBatchLoad({ baseUrl: deps.api.baseUrl, key: deps.api.key, size: SPEND_BATCH_SIZE, connections: BATCH_CONNECTIONS, durationS: deps.durationS, prefix, users: sides[side] });
        const cpu = meters.stop();
        const name = `spend ${side} budgets, ${workload}`;
        deps.assertClean(name, load);
        const us = (cores: number) => ((cores / load.eventsPerSecond) * 1e6).toFixed(0);
        deps.log(`${name}: ${Math.round(load.eventsPerSecond)} events/s, CPU per event api ${us(cpu.apiCores)} us + postgres ${us(cpu.postgresCores)} us, load average ${loadavg()[0]!.toFixed(2)}`);
        runs[workload][side].push({ apis: 1, load, cpu });
      }
    }
  }
  const comparisons = (['single', 'batch 100'] as const).map((workload): SpendComparison => {
    const without = pooledCpuPerEventUs(runs[workload].without);
    const withBudgets = pooledCpuPerEventUs(runs[workload].with);
    return { workload, without, with: withBudgets, ratio: withBudgets.service / without.service };
  });
  return { durationS: deps.durationS, rounds: deps.rounds, loadAvgStart, loadAvgEnd: loadavg(), comparisons };
}

export function renderSpendTable(figures: SpendBenchFigures): string {
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const rows = figures.comparisons.map(
    (c) =>
      `| ${c.workload} | ${c.without.api.toFixed(0)} + ${c.without.postgres.toFixed(0)} = ${c.without.service.toFixed(0)} | ${c.with.api.toFixed(0)} + ${c.with.postgres.toFixed(0)} = ${c.with.service.toFixed(0)} | ${c.ratio.toFixed(3)} (target <= ${SPEND_TARGET_RATIO}) | ${c.without.eventsPerSecond.map((r) => r.toFixed(0)).join(', ')} / ${c.with.eventsPerSecond.map((r) => r.toFixed(0)).join(', ')} |`,
  );
  return [
    `Budgets and ingestion, same run (${figures.rounds} round(s) of ${figures.durationS} s per side and workload, ABBA); load average (1/5/15 min) ${load(figures.loadAvgStart)} at start, ${load(figures.loadAvgEnd)} at end`,
    '',
    '| workload | without budgets: api + postgres us/event | with 10 budgets | with / without | events/s per run (without / with) |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
