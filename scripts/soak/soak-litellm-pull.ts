// When the pull must have billed a spend row the soak wrote to LiteLLM's table, as the service
// documents it (api.md "LiteLLM proxy, pull"; docs/integrations.md), with the bound taken from the
// service's own constant, never a number of the soak's:
// - a row is due once its "endTime" is reached: a row dated ahead (the soak's clock step, up to
//   4 minutes) is billed only then, never before;
// - a due row is billed within LATE_SWEEP_SLICES completed pull runs: the checkpoint's pages take
//   a row inside the overlap at the next run, and a row written behind it (the clock step's hour
//   back) is found by the late sweep, one slice of the window per run. The service counts its
//   completed runs (litellm_sync_state.sweep_runs; each run reads the count at its start and moves
//   it at its end), so the soak reads that count c once the row is due and committed: the runs
//   that move it from c+1 to c+1+LATE_SWEEP_SLICES all started after that read, so they saw the
//   row and swept every slice. Past c + LATE_SWEEP_SLICES + 1 an unbilled row is a failure.
import { LATE_SWEEP_SLICES } from '../../src/modules/litellm/litellm-late-sweep.js';
import type { EventRecord } from './soak-record.js';

/** Completed pull runs after the count read once the row was due, by which it must be billed. */
export const PULL_RUNS_BOUND = LATE_SWEEP_SLICES + 1;

export type PullRowState = 'not_due' | 'within_bound' | 'overdue';

/**
 * Where an unbilled pull row stands at `nowMs` with the service's count of completed runs
 * `sweepRuns` (read in the same snapshot as the billing). The first due check records the count.
 */
export function pullRowState(event: EventRecord, nowMs: number, sweepRuns: number): PullRowState {
  if (event.occurredMs > nowMs) return 'not_due';
  event.sweepRunsWhenDue ??= sweepRuns;
  return sweepRuns >= event.sweepRunsWhenDue + PULL_RUNS_BOUND ? 'overdue' : 'within_bound';
}

/** The pull's count of completed runs (0 before its first). */
export const SWEEP_RUNS_SQL = `SELECT coalesce((SELECT sweep_runs FROM litellm_sync_state WHERE path = 'pull'), 0)::int AS runs`;
