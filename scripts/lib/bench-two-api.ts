// The two-API phase of the benchmark: pure helpers (no I/O) for the round-robin client and for
// the figures set next to the one-process ones of the same run.
import type { LoadResult, PhaseCpu } from './bench-http.js';

/**
 * The round-robin client: the target of each of `connections` keep-alive connections, connection
 * i on API i mod n (autocannon's url list is used the same way), so every API gets the same
 * number of clients, as a connection-level round-robin balancer gives. The count must be a
 * multiple of the APIs, else one API would get more clients than the other.
 */
export function roundRobinTargets(baseUrls: readonly string[], connections: number): string[] {
  if (baseUrls.length === 0) throw new Error('round-robin over no API');
  if (new Set(baseUrls).size !== baseUrls.length) throw new Error(`round-robin over the same API twice: ${baseUrls.join(', ')}`);
  if (!Number.isSafeInteger(connections) || connections < 1) throw new Error(`connections must be a positive integer, got ${connections}`);
  if (connections % baseUrls.length !== 0) throw new Error(`${connections} connections do not split evenly over ${baseUrls.length} APIs`);
  return Array.from({ length: connections }, (_, i) => baseUrls[i % baseUrls.length]!);
}

/** CPU of a two-API phase: the usual split, the API share per process, and Redis (shared limits, queues). */
export interface MultiApiCpu extends PhaseCpu {
  /** Cores of each API process; apiCores is their sum. */
  apiCoresEach: number[];
  /** The local redis-server (shared with other users of the machine): included in otherCores. */
  redisCores: number;
}

/** One measured phase (one or two APIs) with its load and CPU. */
export interface ApiPhaseRun {
  apis: number;
  load: LoadResult;
  cpu: MultiApiCpu;
}

/** CPU microseconds per event of one phase, by who spent them. */
export interface CpuPerEventUs {
  api: number;
  postgres: number;
  redis: number;
  loadGenerator: number;
  /** API + Postgres: what the service itself costs per event. */
  service: number;
}

export function cpuPerEventUs(run: ApiPhaseRun): CpuPerEventUs | null {
  const rate = run.load.eventsPerSecond;
  if (!(rate > 0)) return null;
  const us = (cores: number) => (cores / rate) * 1e6;
  return { api: us(run.cpu.apiCores), postgres: us(run.cpu.postgresCores), redis: us(run.cpu.redisCores), loadGenerator: us(run.cpu.loadGeneratorCores), service: us(run.cpu.apiCores + run.cpu.postgresCores) };
}

/** The median of the runs by events/s (the lower middle for an even count), with every run's rate. */
export function medianByRate<T extends { load: LoadResult }>(runs: readonly T[]): T & { runsEventsPerSecond: number[] } {
  if (runs.length === 0) throw new Error('median of no run');
  const sorted = [...runs].sort((a, b) => a.load.eventsPerSecond - b.load.eventsPerSecond);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, runsEventsPerSecond: runs.map((r) => r.load.eventsPerSecond) };
}

/** A workload (batch 1000 or single) on one API and on two, in the same run. */
export interface TwoApiComparison {
  workload: string;
  connections: number;
  one: ApiPhaseRun & { runsEventsPerSecond: number[] };
  two: ApiPhaseRun & { runsEventsPerSecond: number[] };
  /** two / one aggregate events/s. */
  speedup: number;
  /** two / one p99. */
  p99Ratio: number;
  oneUs: CpuPerEventUs | null;
  twoUs: CpuPerEventUs | null;
}

/** Sets the median two-API run of a workload next to the median one-API run of the same rounds. */
export function compareTwoApi(workload: string, connections: number, oneRuns: readonly ApiPhaseRun[], twoRuns: readonly ApiPhaseRun[]): TwoApiComparison {
  if (oneRuns.some((r) => r.apis !== 1) || twoRuns.some((r) => r.apis !== 2)) throw new Error(`${workload}: runs of the wrong process count`);
  const one = medianByRate(oneRuns);
  const two = medianByRate(twoRuns);
  const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
  return {
    workload,
    connections,
    one,
    two,
    speedup: ratio(two.load.eventsPerSecond, one.load.eventsPerSecond),
    p99Ratio: ratio(two.load.latencyP99Ms, one.load.latencyP99Ms),
    oneUs: cpuPerEventUs(one),
    twoUs: cpuPerEventUs(two),
  };
}

/** The cores of a two-API run split per process, e.g. "0.41 + 0.39". */
export function apiCoresText(cpu: MultiApiCpu): string {
  return cpu.apiCoresEach.map((c) => c.toFixed(2)).join(' + ');
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const msText = (n: number) => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** Markdown table of the comparisons: one row per workload and process count. */
export function renderTwoApiTable(comparisons: readonly TwoApiComparison[]): string {
  const lines = [
    '| workload | API processes | events/s (runs) | vs one | p50 / p99 | API cores | Postgres | load generator | Redis | other (incl. Redis) | CPU per event: API / Postgres / Redis |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of comparisons) {
    for (const [run, us, vs] of [[c.one, c.oneUs, '1.00x'], [c.two, c.twoUs, `${c.speedup.toFixed(2)}x`]] as const) {
      const runs = run.runsEventsPerSecond.length > 1 ? ` (${run.runsEventsPerSecond.map(int).join(' / ')})` : '';
      const perEvent = us ? `${int(us.api)} / ${int(us.postgres)} / ${int(us.redis)} us` : 'n/a';
      lines.push(`| ${c.workload}, ${c.connections} clients | ${run.apis} | ${int(run.load.eventsPerSecond)}${runs} | ${vs} | ${msText(run.load.latencyP50Ms)} / ${msText(run.load.latencyP99Ms)} | ${apiCoresText(run.cpu)} | ${run.cpu.postgresCores.toFixed(2)} | ${run.cpu.loadGeneratorCores.toFixed(2)} | ${run.cpu.redisCores.toFixed(2)} | ${run.cpu.otherCores.toFixed(2)} | ${perEvent} |`);
    }
  }
  return lines.join('\n');
}
