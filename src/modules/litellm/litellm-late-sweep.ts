// Which minutes of LiteLLM's "startTime" one pull run checks for rows written late (api.md: a row
// committed up to LITELLM_BACKFILL_LATE_SECONDS after its "endTime" is billed). Pure.
//
// LiteLLM_SpendLogs has no column set at insert and no index on "endTime" (schema.prisma: indexes
// on "startTime", ("startTime", request_id), end_user, session_id). So the sweep works on the
// ("startTime", request_id) index: per minute, the row count and a sum of hashes of the ids
// (index-only), compared with the figures of the last read; only a minute whose figures changed
// has its ids read, and only its unknown ids have their rows fetched. Each run checks one slice
// of the window (the minutes whose number is the run's modulo LATE_SWEEP_SLICES), so a run costs
// 1/LATE_SWEEP_SLICES of the window's index entries, and a late row is found within
// LATE_SWEEP_SLICES runs. The run's number is the count of sweeps completed
// (litellm_sync_state.sweep_runs), not the clock: runs that came late, twice in one interval or
// not at all under load used to sweep some slices and skip others.

export const LATE_SWEEP_SLICES = 12;
/** How long before its "endTime" a call may have started: the window reaches this much further back in "startTime". */
export const CALL_DURATION_MAX_MS = 3600_000;
const MINUTE_MS = 60_000;

/**
 * The minutes (RFC 3339, UTC, on the minute) of [nowMs - lateMs - CALL_DURATION_MAX_MS, untilMs)
 * that run number `run` checks; the minute holding untilMs is one of them (rows before untilMs in
 * it are not read by the overlap, and the checkpoint may not move for a while).
 */
export function lateSweepMinutes(nowMs: number, lateMs: number, untilMs: number, run: number): string[] {
  const first = Math.floor((nowMs - lateMs - CALL_DURATION_MAX_MS) / MINUTE_MS);
  const last = Math.ceil(untilMs / MINUTE_MS);
  const slice = ((run % LATE_SWEEP_SLICES) + LATE_SWEEP_SLICES) % LATE_SWEEP_SLICES;
  const minutes: string[] = [];
  for (let m = first; m < last; m += 1) {
    if (m % LATE_SWEEP_SLICES === slice) minutes.push(new Date(m * MINUTE_MS).toISOString().replace('.000Z', 'Z'));
  }
  return minutes;
}

/** Where the sweep forgets its figures: before the oldest minute any run still checks. */
export function lateSweepFloor(nowMs: number, lateMs: number): string {
  return new Date(Math.floor((nowMs - lateMs - CALL_DURATION_MAX_MS) / MINUTE_MS) * MINUTE_MS).toISOString();
}
