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
import type { Observation } from './soak-wait.js';

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

/** The failure of a due row still unbilled past the bound (the invariant's and the drain's words). */
export function overdueMessage(event: EventRecord, sweepRuns: number): string {
  return `${event.event_id} (litellm_pull, written at step ${event.acceptedStep}, endTime ${event.occurredAt}) is not stored after ${sweepRuns - event.sweepRunsWhenDue!} completed pull runs since it was due (documented: within ${PULL_RUNS_BOUND - 1})`;
}

interface Queryable {
  query<R extends object>(sql: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

export type PullObservation = Observation & { runs: number; unbilled: EventRecord[] };

/**
 * One observation of the pull for a drain, in one statement (one snapshot): the count of completed
 * runs (the progress mark) and which of `rows` are stored. Done when every due row is stored; lost
 * when a due row is unbilled past the bound (pullRowState, which also records the count when a row
 * is first seen due); `overdue` gets the rows past it.
 */
export async function observePull(db: Queryable, rows: EventRecord[], overdue: EventRecord[] = []): Promise<PullObservation> {
  // Taken before the snapshot: a row due by now was due (and written) before everything it sees.
  const nowMs = Date.now();
  const result = await db.query<{ runs: number; stored: string[] }>(
    `SELECT coalesce((SELECT sweep_runs FROM litellm_sync_state WHERE path = 'pull'), 0)::int AS runs,
            ARRAY(SELECT event_id FROM usage_event_keys WHERE event_id = ANY($1::text[])) AS stored`,
    [rows.map((e) => e.event_id)],
  );
  const { runs, stored } = result.rows[0]!;
  const storedIds = new Set(stored);
  const unbilled = rows.filter((e) => !storedIds.has(e.event_id) && e.occurredMs <= nowMs);
  overdue.length = 0;
  for (const event of unbilled) if (pullRowState(event, nowMs, runs) === 'overdue') overdue.push(event);
  return {
    done: unbilled.length === 0,
    progress: runs,
    runs,
    unbilled,
    lost: overdue.length > 0 ? `${overdue.length} due LiteLLM spend rows unbilled after ${PULL_RUNS_BOUND} completed pull runs since they were due (count ${runs})` : null,
  };
}
