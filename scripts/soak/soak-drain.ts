// A drain: waits (bounded) until the asynchronous paths have delivered what they took (the SDK
// outbox flushed, the usage queue empty, LiteLLM's due spend rows pulled, expired grants broken) and no settlement is on its
// way to the chain, then runs the strict invariants: nothing accepted missing, the SDK outbox lost
// nothing, USDC on chain == paid, the service's own ledger check ok.
import { sleep } from '../lib/processes.js';
import type { Invariants } from './soak-invariants.js';
import type { SoakContext } from './soak-ops-context.js';
import { SWEEP_RUNS_SQL } from './soak-litellm-pull.js';
import { CLOCK_OFFSET_MAX_MS } from './soak-schedule.js';

const DRAIN_WAIT_MS = 90_000;
/** A settlement waiting for the hot wallet is retried a minute later: give it two. */
const SETTLEMENT_WAIT_MS = 180_000;
const POLL_MS = 500;
/** The final drain waits for grants expiring within this long, so their breakage is checked. */
const GRANT_EXPIRY_WAIT_MAX_MS = 100_000;

async function waitUntil(what: string, ctx: SoakContext, done: () => Promise<boolean>, waitMs = DRAIN_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      if (await done()) return true;
    } catch {
      // Postgres or Redis coming back: ask again.
    }
    if (Date.now() > deadline) {
      ctx.log(`drain at step ${ctx.step}: ${what} not done within ${waitMs / 1000} s`);
      return false;
    }
    await sleep(POLL_MS);
  }
}

const ASYNC_PATHS = new Set(['queue', 'litellm_pull', 'sdk']);

async function sweepRuns(ctx: SoakContext): Promise<number | null> {
  return (await ctx.stack.db.query<{ runs: number }>(SWEEP_RUNS_SQL).catch(() => null))?.rows[0]?.runs ?? null;
}

export async function drain(ctx: SoakContext, invariants: Invariants, options: { final?: boolean } = {}): Promise<void> {
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
  await waitUntil('breakage of expired grants', ctx, async () => {
    const open = await ctx.stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_grants WHERE expired_at IS NULL AND expires_at <= $1', [new Date(grantsDueBeforeMs)]);
    return open.rows[0]!.n === 0;
  });
  await waitUntil('SDK outbox flush', ctx, async () => (await ctx.stack.sdk.flush())?.pending === 0);
  await waitUntil('usage queue', ctx, async () => {
    const c = await ctx.usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) === 0;
  });
  // A spend row dated ahead is not due yet: the pull bills it only once its endTime is reached.
  const due = () => [...ctx.record.events.values()].filter((e) => e.state === 'accepted' && ASYNC_PATHS.has(e.path) && (e.path !== 'litellm_pull' || e.occurredMs <= Date.now()));
  const pullRunsBefore = await sweepRuns(ctx);
  const delivered = await waitUntil('asynchronous events stored', ctx, async () => {
    const ids = due().map((e) => e.event_id);
    const found = await ctx.stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_event_keys WHERE event_id = ANY($1::text[])', [ids]);
    return found.rows[0]!.n === ids.length;
  });
  // The bound is in pull runs (soak-litellm-pull.ts): a pull that makes none at all never reaches
  // it, so a wait with due rows unbilled and no run completed is a failure of its own.
  if (!delivered) {
    const pullRunsAfter = await sweepRuns(ctx);
    const missing = await ctx.stack.db.query<{ event_id: string }>('SELECT event_id FROM usage_event_keys WHERE event_id = ANY($1::text[])', [due().filter((e) => e.path === 'litellm_pull').map((e) => e.event_id)]).catch(() => null);
    const pullDue = due().filter((e) => e.path === 'litellm_pull').length;
    if (missing && pullDue > missing.rows.length && pullRunsAfter !== null && pullRunsAfter === pullRunsBefore) {
      ctx.fail('accepted_events_stored', `${pullDue - missing.rows.length} due LiteLLM spend rows unbilled and the pull completed no run in ${DRAIN_WAIT_MS / 1000} s (count ${pullRunsAfter})`);
    }
  }
  const notDue = [...ctx.record.events.values()].filter((e) => e.state === 'accepted' && e.path === 'litellm_pull' && e.occurredMs > Date.now()).length;
  if (notDue > 0) ctx.log(`drain at step ${ctx.step}: ${notDue} LiteLLM spend rows dated ahead, not due yet`);
  const settled = await waitUntil('settlements on their way to the chain', ctx, async () => {
    const open = await ctx.stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM settlements WHERE status IN ('queued', 'submitting')`);
    return open.rows[0]!.n === 0;
  }, SETTLEMENT_WAIT_MS);
  // A reorg may have dropped a payout the finality watch sends again: give it time to converge.
  if (settled) await waitUntil('on-chain USDC == paid', ctx, async () => (await invariants.chainMismatches(ctx)).length === 0);
  await invariants.afterStep(ctx, { strict: true, grantsDueBeforeMs });
  await invariants.strictChecks(ctx, settled);
}
