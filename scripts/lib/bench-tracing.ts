// The tracing-cost phase of the benchmark (issue 28): pure helpers (no I/O). The same loads run on
// the untraced API and on a traced one (same build, database, Redis, default sampler, exporting
// to a local OTLP sink), back to back, and the CPU per event of the two is set side by side.
import type { ApiPhaseRun } from './bench-two-api.js';

/** Issue 28's ceilings on tracing on / off, CPU per event (API + Postgres). */
export const TRACING_TARGET_RATIO = { 'batch 1000': 1.1, single: 1.15 } as const;
export type TracingWorkload = keyof typeof TRACING_TARGET_RATIO;

/** CPU microseconds per event over every run of one side (total CPU / total events). */
export interface TracingSideUs {
  api: number;
  postgres: number;
  /** API + Postgres: what the target is about. */
  service: number;
  eventsPerSecond: number[];
  p99Ms: number[];
}

export interface TracingComparison {
  workload: TracingWorkload;
  connections: number;
  off: TracingSideUs;
  on: TracingSideUs;
  /** on / off, service CPU per event. */
  ratio: number;
  target: number;
}

/**
 * One side's CPU per event, pooled over its runs (CPU seconds summed over events summed), so a
 * short slow run weighs as much as its events and no more.
 */
export function pooledCpuPerEventUs(runs: readonly ApiPhaseRun[]): TracingSideUs {
  if (runs.length === 0) throw new Error('CPU per event of no run');
  let events = 0;
  let apiS = 0;
  let postgresS = 0;
  for (const run of runs) {
    events += run.load.eventsPerSecond * run.load.seconds;
    apiS += run.cpu.apiCores * run.load.seconds;
    postgresS += run.cpu.postgresCores * run.load.seconds;
  }
  if (!(events > 0)) throw new Error('CPU per event of runs without events');
  const us = (s: number) => (s / events) * 1e6;
  return { api: us(apiS), postgres: us(postgresS), service: us(apiS + postgresS), eventsPerSecond: runs.map((r) => r.load.eventsPerSecond), p99Ms: runs.map((r) => r.load.latencyP99Ms) };
}

export function compareTracing(workload: TracingWorkload, connections: number, offRuns: readonly ApiPhaseRun[], onRuns: readonly ApiPhaseRun[]): TracingComparison {
  const off = pooledCpuPerEventUs(offRuns);
  const on = pooledCpuPerEventUs(onRuns);
  return { workload, connections, off, on, ratio: on.service / off.service, target: TRACING_TARGET_RATIO[workload] };
}

/**
 * The order of the runs of round `round` (1-based): off then on in odd rounds, on then off in even
 * ones (ABBA), so a machine that drifts slower or faster during the phase charges both sides alike.
 */
export function tracingRunOrder(round: number): Array<'off' | 'on'> {
  return round % 2 === 1 ? ['off', 'on'] : ['on', 'off'];
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** One line per workload for the console and the bench log. */
export function tracingLine(c: TracingComparison): string {
  return `tracing ${c.workload}: CPU per event (API + Postgres) off ${int(c.off.api)} + ${int(c.off.postgres)} = ${int(c.off.service)} us, on ${int(c.on.api)} + ${int(c.on.postgres)} = ${int(c.on.service)} us, on/off ${c.ratio.toFixed(3)}x (target <= ${c.target.toFixed(2)}x) ${c.ratio <= c.target ? 'MET' : 'NOT MET'}`;
}

/** Markdown table: one row per workload and side. */
export function renderTracingTable(comparisons: readonly TracingComparison[]): string {
  const lines = [
    '| workload | tracing | events/s (runs) | p99 (runs) | CPU per event: API / Postgres / both | on / off | target |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const c of comparisons) {
    for (const side of ['off', 'on'] as const) {
      const s = c[side];
      const cells = side === 'off' ? ['1.00x', ''] : [`${c.ratio.toFixed(3)}x`, `<= ${c.target.toFixed(2)}x`];
      lines.push(`| ${c.workload}, ${c.connections} clients | ${side} | ${s.eventsPerSecond.map(int).join(' / ')} | ${s.p99Ms.map((p) => `${p} ms`).join(' / ')} | ${int(s.api)} / ${int(s.postgres)} / ${int(s.service)} us | ${cells[0]} | ${cells[1]} |`);
    }
  }
  return lines.join('\n');
}
