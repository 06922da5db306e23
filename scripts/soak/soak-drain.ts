// A drain: waits until the asynchronous paths have delivered what they took (the SDK outbox
// flushed, the usage queue empty, LiteLLM's due spend rows pulled, expired grants broken) and no
// settlement is on its way to the chain, then runs the strict invariants: nothing accepted missing,
// the SDK outbox lost nothing, USDC on chain == paid, the service's own ledger check ok.
// Each wait counts the system's own progress (soak-wait.ts), not seconds: the pull's completed runs
// (litellm_sync_state.sweep_runs), the queue's finished jobs, the outbox's deliveries, the grants
// broken, the settlements' and payouts' changes of state. A loaded machine is waited for as long as
// the work moves; wall-clock time ends a wait only after SOAK_DRAIN_STALL_MAX_S (600 s) without any
// progress at all (then the drain's later waits end after their notice: one ceiling per drain). A
// LiteLLM row still unbilled after the pull's documented number of completed runs fails at once:
// that is a loss, whatever the load.
import { sleep } from '../lib/processes.js';
import type { Invariants } from './soak-invariants.js';
import type { SoakContext } from './soak-ops-context.js';
import { observePull, overdueMessage, SWEEP_RUNS_SQL, type PullObservation } from './soak-litellm-pull.js';
import type { EventRecord } from './soak-record.js';
import { CLOCK_OFFSET_MAX_MS } from './soak-schedule.js';
import { loadText, waitForProgress, type Observation, type ProgressWaitOptions, type WaitResult } from './soak-wait.js';

/** No progress for this long: the drain says so (with the load) and waits on. */
const STALL_NOTICE_MS = 90_000;
/** A settlement waiting for the hot wallet is retried a minute later: a quiet spell of two is normal. */
const SETTLEMENT_STALL_NOTICE_MS = 180_000;
/** No progress at all for this long ends a wait (the last resort). */
export const DRAIN_STALL_MAX_MS = Number(process.env.SOAK_DRAIN_STALL_MAX_S ?? '600') * 1000;
/** The final drain waits for grants expiring within this long, so their breakage is checked. */
const GRANT_EXPIRY_WAIT_MAX_MS = 100_000;

function waitOptions(unit: string, stallNoticeMs = STALL_NOTICE_MS): ProgressWaitOptions {
  return { unit, stallNoticeMs, stallMaxMs: Math.max(DRAIN_STALL_MAX_MS, stallNoticeMs) };
}

/** The longest spell without progress of the drain running now (for the report). */
let drainLongestStillMs = 0;
/**
 * A wait of this drain ran into the ceiling: the system is stuck and that is reported; the drain's
 * later waits end after the notice instead, so a dead stack costs one ceiling, not one per wait.
 */
let drainStalled = false;

async function waitFor(ctx: SoakContext, what: string, options: ProgressWaitOptions, observe: () => Promise<Observation>): Promise<WaitResult> {
  const stallMaxMs = drainStalled ? Math.min(options.stallMaxMs, options.stallNoticeMs) : options.stallMaxMs;
  const result = await waitForProgress(`drain at step ${ctx.step}: ${what}`, observe, { ...options, stallMaxMs }, ctx.log);
  drainLongestStillMs = Math.max(drainLongestStillMs, result.longestStillMs);
  if (result.outcome === 'stalled') drainStalled = true;
  if (result.outcome === 'done' && result.waitedMs > STALL_NOTICE_MS) ctx.log(`drain at step ${ctx.step}: ${what} done after ${Math.round(result.waitedMs / 1000)} s (${result.moves} progress marks)`);
  return result;
}

const ASYNC_PATHS = new Set(['queue', 'sdk']);

/**
 * The due LiteLLM spend rows, waited for in completed pull runs: done once all are billed; a row
 * unbilled past the pull's bound (counted from the run count when the row was first seen due) is a
 * loss and fails at once; no run completed for the stall ceiling fails too, saying so with the load.
 */
export async function waitForPullRows(ctx: SoakContext, options: ProgressWaitOptions = waitOptions('pull run completed')): Promise<WaitResult> {
  const rows = [...ctx.record.events.values()].filter((e) => e.state === 'accepted' && e.path === 'litellm_pull');
  const overdue: EventRecord[] = [];
  const seen: { last: PullObservation | null } = { last: null };
  const result = await waitFor(ctx, 'due LiteLLM spend rows billed', options, async () => (seen.last = await observePull(ctx.stack.db, rows, overdue)));
  const last = seen.last;
  if (result.outcome === 'lost') {
    for (const event of overdue) {
      ctx.fail('accepted_events_stored', overdueMessage(event, last!.runs));
      event.state = 'refused'; // reported once
    }
  } else if (result.outcome === 'stalled') {
    const unbilled = last?.unbilled.length ?? rows.length;
    ctx.fail('accepted_events_stored', `${unbilled} due LiteLLM spend rows unbilled and ${result.message} (run count ${last?.runs ?? 'unknown'})`);
  }
  return result;
}

async function pullRuns(ctx: SoakContext): Promise<number | null> {
  return (await ctx.stack.db.query<{ runs: number }>(SWEEP_RUNS_SQL).catch(() => null))?.rows[0]?.runs ?? null;
}

export async function drain(ctx: SoakContext, invariants: Invariants, options: { final?: boolean } = {}): Promise<void> {
  const startMs = Date.now();
  const runsBefore = await pullRuns(ctx);
  drainLongestStillMs = 0;
  drainStalled = false;
  if (options.final) {
    // The last drain lets spend rows dated ahead (the clock step, within the future skew) fall due,
    // so every row the soak wrote is checked against the pull's bound, and the grants that expire
    // within the soak's tens of seconds expire, so their breakage is checked too.
    const dueMs = Math.max(0, ...[...ctx.record.events.values()].filter((e) => e.state === 'accepted' && e.path === 'litellm_pull').map((e) => e.occurredMs));
    const soonMs = Math.max(0, ...[...ctx.record.grants.values()].map((g) => g.expiresAtMs).filter((ms) => ms <= Date.now() + GRANT_EXPIRY_WAIT_MAX_MS));
    const waitMs = Math.max(Math.min(dueMs - Date.now() + 1_000, CLOCK_OFFSET_MAX_MS + 10_000), soonMs - Date.now() + 1_000);
    if (waitMs > 0) {
      ctx.log(`final drain: waiting ${Math.round(waitMs / 1000)} s for LiteLLM spend rows dated ahead to fall due and grants to expire`);
      await sleep(waitMs);
    }
  }
  // Every grant expired by now is broken by the worker's sweep (every 15 s) before the checks.
  const grantsDueBeforeMs = Date.now();
  await waitFor(ctx, 'breakage of expired grants', waitOptions('expired grant broken'), async () => {
    const open = await ctx.stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_grants WHERE expired_at IS NULL AND expires_at <= $1', [new Date(grantsDueBeforeMs)]);
    return { done: open.rows[0]!.n === 0, progress: open.rows[0]!.n };
  });
  await waitFor(ctx, 'SDK outbox flush', waitOptions('SDK outbox delivery'), async () => {
    const pending = (await ctx.stack.sdk.flush())?.pending;
    return { done: pending === 0, progress: pending ?? 'no answer' };
  });
  await waitFor(ctx, 'usage queue', waitOptions('usage job finished'), async () => {
    const c = await ctx.usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
    const open = (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
    return { done: open === 0, progress: `${open}/${c.completed ?? 0}/${c.failed ?? 0}` };
  });
  // Queued and outbox events: stored once the queue is empty and the outbox flushed.
  const queued = [...ctx.record.events.values()].filter((e) => e.state === 'accepted' && ASYNC_PATHS.has(e.path)).map((e) => e.event_id);
  await waitFor(ctx, 'queued and outbox events stored', waitOptions('queued or outbox event stored'), async () => {
    const found = await ctx.stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_event_keys WHERE event_id = ANY($1::text[])', [queued]);
    return { done: found.rows[0]!.n === queued.length, progress: found.rows[0]!.n };
  });
  // LiteLLM spend rows, in the pull's completed runs. A row dated ahead is not due yet: the pull
  // bills it only once its endTime is reached.
  await waitForPullRows(ctx);
  const notDue = [...ctx.record.events.values()].filter((e) => e.state === 'accepted' && e.path === 'litellm_pull' && e.occurredMs > Date.now()).length;
  if (notDue > 0) ctx.log(`drain at step ${ctx.step}: ${notDue} LiteLLM spend rows dated ahead, not due yet`);
  // Settlements: any change of an open settlement (status, error, retry) or of a payout
  // transaction (sent, mined, final, reorganised out) is progress.
  const settlementProgress = async () => {
    const r = await ctx.stack.db.query<{ open: number; mark: string }>(
      `SELECT (SELECT count(*)::int FROM settlements WHERE status IN ('queued', 'submitting')) AS open,
              coalesce((SELECT string_agg(id || status || updated_at::text || coalesce(last_error, ''), ',' ORDER BY id) FROM settlements WHERE status IN ('queued', 'submitting')), '') || '|' ||
              coalesce((SELECT count(*) || ':' || max(updated_at)::text || ':' || count(final_at) || ':' || sum(reorg_count) FROM settlement_txs), '') AS mark`,
    );
    return r.rows[0]!;
  };
  const settled = (await waitFor(ctx, 'settlements on their way to the chain', waitOptions('settlement or payout change', SETTLEMENT_STALL_NOTICE_MS), async () => {
    const { open, mark } = await settlementProgress();
    return { done: open === 0, progress: mark };
  })).outcome === 'done';
  // A reorg may have dropped a payout the finality watch sends again: give it time to converge.
  if (settled) {
    await waitFor(ctx, 'on-chain USDC == paid', waitOptions('payout change'), async () => {
      const mismatches = await invariants.chainMismatches(ctx);
      return { done: mismatches.length === 0, progress: `${mismatches.join(';')}|${(await settlementProgress()).mark}` };
    });
  }
  const runsAfter = await pullRuns(ctx);
  const wait = { step: ctx.step, final: options.final === true, wait_s: Math.round((Date.now() - startMs) / 100) / 10, pull_runs: runsBefore !== null && runsAfter !== null ? runsAfter - runsBefore : -1, longest_still_s: Math.round(drainLongestStillMs / 100) / 10, load: loadText() };
  ctx.record.drainWaits.push(wait);
  ctx.log(`${wait.final ? 'final drain' : `drain at step ${ctx.step}`}: waited ${wait.wait_s} s, ${wait.pull_runs} pull runs completed meanwhile, at most ${wait.longest_still_s} s without progress, load ${wait.load}`);
  await invariants.afterStep(ctx, { strict: true, grantsDueBeforeMs });
  await invariants.strictChecks(ctx, settled);
}
