// The soak's JSON report (operations.md: seed, schedule_hash, steps, step_hashes, ops, faults,
// invariants with checks and failures, database_url, duration_s) and its progress lines.
import { writeFileSync } from 'node:fs';
import type { Failure } from './soak-invariants.js';
import type { DrainWait } from './soak-record.js';

export interface SoakReport {
  seed: number;
  /** The hash chain after the last step run: equal for two runs of a seed that ran as many steps. */
  schedule_hash: string;
  steps: number;
  step_hashes: string[];
  ops: Record<string, number>;
  faults: Record<string, number>;
  invariants: Record<string, { checks: number; failures: number }>;
  failures: Failure[];
  /** The first failure: seed, step and invariant, to replay with --replay <step>. */
  first_failure: Failure | null;
  database_url: string;
  duration_s: number;
  minutes: number;
  replay: number | null;
  commit: string;
  started_at: string;
  five_xx: { allowed_503: number; violations: number };
  webhook_deliveries: Record<string, number>;
  op_errors: string[];
  /** LiteLLM pull: the most completed pull runs a due spend row waited (bound: LATE_SWEEP_SLICES + 1). */
  litellm_pull_runs_to_bill_max: number;
  /**
   * Each drain's wait (soak-drain.ts, in the system's progress): seconds, pull runs completed
   * meanwhile, the longest spell without any progress, the 1-minute load average at its end.
   */
  drain_waits: DrainWait[];
  /** Racing holds of the budget ops: let through, 402 budget_exceeded, other refusals. */
  budget_holds: { taken: number; budget_exceeded: number; other: number };
  /** Distinct budget threshold alerts the healthy receiver got. */
  budget_alerts: number;
  /**
   * Credit grants the service confirmed (of which expiring within the soak), invalid grants (400)
   * and conflicting replays (409) refused, auto top-up and threshold PUTs, top-up requests the
   * healthy receiver got and how the soak answered them; distinct webhooks per type it got.
   */
  spend: { grants: number; grants_expiring_in_soak: number; invalid_refused: number; conflicts_refused: number; settings_put: number; topup_requests: number; topups_credited: number; topups_failed: number; webhooks_by_type: Record<string, number> };
  ok: boolean;
}

export function countInto(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

export function writeReport(report: SoakReport, path: string | undefined): void {
  const text = JSON.stringify(report);
  if (path) writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  // The last line of the output is the report (operations.md).
  process.stdout.write(`${text}\n`);
}

export function failureLine(seed: number, failure: Failure): string {
  return `SOAK FAILURE seed=${seed} step=${failure.step} invariant=${failure.invariant}: ${failure.message}\n  replay: npm run soak -- --seed ${seed} --replay ${failure.step}`;
}
