// The committed figures of docs/performance.md ("Where the CPU went": API and Postgres CPU per
// event per phase), read at the start of a run so every phase prints its own figure next to the
// committed one: a regression shows in the run's output and in review, not only in the rewrite.
import { existsSync, readFileSync } from 'node:fs';

export interface CommittedCpu {
  apiUs: number;
  postgresUs: number;
}

/** Phase name (`batch 1000`, `single (64 clients)` as `single`, ...) -> CPU per event in the doc. */
export function readCommittedCpu(docPath: string): Map<string, CommittedCpu> {
  const figures = new Map<string, CommittedCpu>();
  if (!existsSync(docPath)) return figures;
  const text = readFileSync(docPath, 'utf8');
  const start = text.indexOf('## Where the CPU went');
  if (start < 0) return figures;
  const section = text.slice(start, text.indexOf('\n## ', start + 1) >>> 0 || undefined);
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | phase | events/s | API | Postgres | load generator | other | API us | Postgres us | RSS |
    if (cells.length < 10 || !/ us$/.test(cells[7] ?? '') || !/ us$/.test(cells[8] ?? '')) continue;
    const phase = cells[1]!.replace(/ \(64 clients\)$/, '');
    figures.set(phase, { apiUs: Number.parseFloat(cells[7]!), postgresUs: Number.parseFloat(cells[8]!) });
  }
  return figures;
}

/** "api 30 us + postgres 26 us (committed: 30 + 26 us, +0%)" for one phase's figure. */
export function cpuPerEventLine(committed: ReadonlyMap<string, CommittedCpu>, phase: string, apiUs: number, postgresUs: number): string {
  const now = `api ${apiUs.toFixed(0)} us + postgres ${postgresUs.toFixed(0)} us = ${(apiUs + postgresUs).toFixed(0)} us`;
  const was = committed.get(phase);
  if (!was) return `${now} (no committed figure for this phase)`;
  const change = ((apiUs + postgresUs) / (was.apiUs + was.postgresUs) - 1) * 100;
  return `${now} (committed docs/performance.md: ${was.apiUs} + ${was.postgresUs} = ${was.apiUs + was.postgresUs} us, ${change >= 0 ? '+' : ''}${change.toFixed(0)}%)`;
}
