// Runs a soak: the stack up, the seeded setup, then step after step of the schedule (operations at
// once, a fault fired among them), the invariants after each step, a drain with the strict checks
// every DRAIN_EVERY steps and at the end; stops at the first failing step unless keepGoing.
import { Queue } from 'bullmq';
import { privateKeyToAccount } from 'viem/accounts';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhooks/webhook-event-types.js';
import { QUEUE_USAGE_EVENTS } from '../../src/queue/usage-events.producer.js';
import { CleanupStack, sleep } from '../lib/processes.js';
import { runFault } from './soak-faults.js';
import { SoakHttp, FAULT_AFTERMATH_MS } from './soak-http.js';
import { Invariants, type Failure } from './soak-invariants.js';
import { payoutKey } from './soak-ops-admin.js';
import type { SoakContext } from './soak-ops-context.js';
import { deploymentOf } from './soak-ops-ingest.js';
import { runOp } from './soak-ops.js';
import { SoakRecord, usdToAtto } from './soak-record.js';
import { countInto, failureLine, type SoakReport } from './soak-report.js';
import { CONTRIBUTORS, PRICED_MODELS, SoakSchedule, USERS } from './soak-schedule.js';
import { SOAK_ADMIN_KEY, startSoakStack, type SoakStack } from './soak-stack.js';
import { drain } from './soak-drain.js';
import { keepDatabase } from './soak-keep.js';

export interface SoakOptions {
  seed: number;
  minutes: number;
  replay: number | null;
  clean: boolean;
  keepGoing: boolean;
  runDir: string;
  commit: string;
  log: (line: string) => void;
}

const INITIAL_PRICES: Record<(typeof PRICED_MODELS)[number], { input_usd_per_mtok: string; output_usd_per_mtok: string; cached_input_usd_per_mtok: string }> = {
  'soak/alpha': { input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25' },
  'soak/beta': { input_usd_per_mtok: '0.15', output_usd_per_mtok: '0.6', cached_input_usd_per_mtok: '0.075' },
};
const INITIAL_EFFECTIVE_FROM = '2026-01-01T00:00:00Z';
const USER_SEED_CREDIT_USD = '1000000';
const PROGRESS_EVERY_MS = 15_000;
const CHECK_ATTEMPTS_MAX = 5;

async function must(ctx: SoakContext, what: string, answer: Promise<{ status: number; json: any }>): Promise<any> {
  const a = await answer;
  if (a.status < 200 || a.status >= 300) throw new Error(`setup ${what}: HTTP ${a.status} ${JSON.stringify(a.json).slice(0, 300)}`);
  return a.json;
}

/** Prices, contributors (address 0 of each), users' credit, LiteLLM deployments, webhooks: the same for every seed but the addresses. */
async function setup(ctx: SoakContext): Promise<void> {
  const { http, record } = ctx;
  for (const model of PRICED_MODELS) {
    const prices = INITIAL_PRICES[model];
    await must(ctx, `price ${model}`, http.request('POST', '/v1/admin/prices', { body: { model, ...prices, effective_from: INITIAL_EFFECTIVE_FROM } }));
    record.addPrice(model, {
      effectiveFromMs: Date.parse(INITIAL_EFFECTIVE_FROM),
      inputAttoPerMtok: usdToAtto(prices.input_usd_per_mtok),
      outputAttoPerMtok: usdToAtto(prices.output_usd_per_mtok),
      cachedAttoPerMtok: usdToAtto(prices.cached_input_usd_per_mtok),
    });
  }
  for (const c of CONTRIBUTORS) {
    const address = privateKeyToAccount(payoutKey(ctx.seed, c.id, 0)).address;
    record.addresses.set(c.id, [address]);
    await must(ctx, `contributor ${c.id}`, http.request('PUT', `/v1/admin/contributors/${c.id}`, { body: { tier: c.tier, payout_address: address } }));
    await must(ctx, `deployment of ${c.id}`, http.request('PUT', `/v1/admin/integrations/litellm/deployments/${deploymentOf(c.id)}`, { body: { contributor_id: c.id } }));
  }
  for (const user of USERS) {
    await must(ctx, `credit ${user}`, http.request('POST', `/v1/admin/users/${user}/credits`, { body: { amount_usd: USER_SEED_CREDIT_USD, reference: `soak-seed-${user}` } }));
    record.addCredit(user, usdToAtto(USER_SEED_CREDIT_USD));
  }
  for (const url of Object.values(ctx.stack.webhooks.urls)) {
    await must(ctx, `webhook ${url}`, http.request('POST', '/v1/admin/webhooks', { body: { url, events: WEBHOOK_EVENT_TYPES, description: 'soak receiver' } }));
  }
}

/** The invariants after a step; a Postgres restart may leave dead pooled connections: tried again. */
async function checkAfterStep(ctx: SoakContext, invariants: Invariants, strict: boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await invariants.afterStep(ctx, { strict });
      return;
    } catch (error) {
      if (attempt >= CHECK_ATTEMPTS_MAX) throw error;
      await sleep(1_000 * attempt);
    }
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const startedMs = Date.now();
  const cleanup = new CleanupStack(o.log);
  const ops: Record<string, number> = {};
  const faults: Record<string, number> = {};
  const stepHashes: string[] = [];
  const opErrors: string[] = [];
  const firstFailures: Failure[] = [];
  let stack: SoakStack | null = null;
  const record = new SoakRecord();
  let http: SoakHttp | null = null;
  let databaseUrl = '';
  const invariants = new Invariants((failure) => {
    if (firstFailures.length < 20) console.error(failureLine(o.seed, failure));
    firstFailures.push(failure);
  });
  const schedule = new SoakSchedule(o.seed);
  try {
    stack = await startSoakStack({ runDir: o.runDir, cleanup, keep: !o.clean, log: o.log });
    databaseUrl = stack.databaseUrl;
    http = new SoakHttp(stack.apis, SOAK_ADMIN_KEY);
    const usageQueue = new Queue(QUEUE_USAGE_EVENTS, { connection: { url: stack.redis.url, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }, prefix: stack.env.QUEUE_PREFIX });
    usageQueue.on('error', () => undefined);
    cleanup.add('close usage queue', () => usageQueue.close().catch(() => undefined));
    const ctx: SoakContext = {
      seed: o.seed,
      stack,
      http,
      record,
      usageQueue,
      step: -1,
      fail: (invariant, message) => invariants.fail(ctx.step, invariant, message),
      checked: (invariant) => invariants.checked(invariant),
      log: o.log,
    };
    await setup(ctx);
    o.log(`setup done in ${Math.round((Date.now() - startedMs) / 1000)} s; running ${o.replay !== null ? `steps 0..${o.replay}` : `${o.minutes} minute(s)`}`);
    const endMs = Date.now() + o.minutes * 60_000;
    let lastProgressMs = Date.now();
    for (;;) {
      if (o.replay !== null ? schedule.currentIndex > o.replay : Date.now() >= endMs) break;
      if (!o.keepGoing && invariants.failures.length > 0) break;
      const { step, hash } = schedule.next();
      stepHashes.push(hash);
      ctx.step = step.index;
      http.step = step.index;
      const opWork = Promise.all(
        step.ops.map((op) => {
          countInto(ops, op.op);
          return op.op === 'drain' ? drain(ctx, invariants) : runOp(ctx, op).catch((error: Error) => void opErrors.push(`step ${step.index} ${op.op}: ${error.message.split('\n')[0]}`));
        }),
      );
      const faultWork = step.fault
        ? (async (fault) => {
            countInto(faults, fault.fault);
            await sleep(fault.delay_ms);
            http.faultActive = true;
            try {
              o.log(`step ${step.index}: fault ${await runFault(ctx, fault)}`);
            } catch (error) {
              opErrors.push(`step ${step.index} fault ${fault.fault}: ${(error as Error).message.split('\n')[0]}`);
            } finally {
              http.faultActive = false;
              http.faultWindowUntilMs = Date.now() + FAULT_AFTERMATH_MS;
            }
          })(step.fault)
        : Promise.resolve();
      await Promise.all([opWork, faultWork]);
      await checkAfterStep(ctx, invariants, false);
      if (Date.now() - lastProgressMs >= PROGRESS_EVERY_MS) {
        lastProgressMs = Date.now();
        const events = ctx.record.events.size;
        o.log(`step ${step.index}: ${events} events sent, ${Object.values(faults).reduce((a, b) => a + b, 0)} faults, ${invariants.failures.length} failures, ${Math.round((Date.now() - startedMs) / 1000)} s`);
      }
    }
    if (invariants.failures.length === 0 || o.keepGoing) {
      o.log('final drain and strict checks');
      await drain(ctx, invariants, { final: true });
    }
    if (!o.clean) databaseUrl = await keepDatabase(stack, o.seed, o.log).catch((error: Error) => `${stack!.databaseUrl} (not kept: ${error.message})`);
  } catch (error) {
    opErrors.push(`soak aborted: ${(error as Error).stack ?? error}`);
    console.error(`soak aborted at step ${schedule.currentIndex - 1}: ${(error as Error).stack ?? error}`);
  } finally {
    await cleanup.runAll();
  }
  const failures = invariants.failures;
  return {
    seed: o.seed,
    schedule_hash: schedule.currentHash,
    steps: stepHashes.length,
    step_hashes: stepHashes,
    ops,
    faults,
    invariants: invariants.counts,
    failures: failures.slice(0, 200),
    first_failure: failures[0] ?? null,
    database_url: databaseUrl,
    duration_s: Math.round((Date.now() - startedMs) / 100) / 10,
    minutes: o.minutes,
    replay: o.replay,
    commit: o.commit,
    started_at: new Date(startedMs).toISOString(),
    five_xx: { allowed_503: http?.fiveXx.filter((f) => f.allowed).length ?? 0, violations: http?.fiveXx.filter((f) => !f.allowed).length ?? 0 },
    webhook_deliveries: stack ? Object.fromEntries(Object.entries(stack.webhooks.received).map(([name, r]) => [name, r.ids.size])) : {},
    op_errors: opErrors.slice(0, 100),
    litellm_pull_runs_to_bill_max: invariants.pullRunsToBillMax,
    drain_waits: record.drainWaits,
    budget_holds: record.budgetHolds,
    budget_alerts: stack?.webhooks.budgetAlerts.healthy.ids.size ?? 0,
    spend: {
      grants: record.grants.size,
      grants_expiring_in_soak: [...record.grants.values()].filter((g) => g.expiresAtMs <= Date.now()).length,
      invalid_refused: record.refusedCredits.invalid,
      conflicts_refused: record.refusedCredits.conflict,
      settings_put: record.spendSettings.length,
      topup_requests: stack?.webhooks.topupRequests.healthy.size ?? 0,
      topups_credited: [...record.answeredTopups.values()].filter((a) => a === 'credit').length,
      topups_failed: [...record.answeredTopups.values()].filter((a) => a === 'fail').length,
      webhooks_by_type: Object.fromEntries([...(stack?.webhooks.byType.healthy ?? new Map<string, Set<string>>())].map(([type, ids]) => [type, ids.size])),
    },
    ok: failures.length === 0 && !opErrors.some((e) => e.startsWith('soak aborted')),
  };
}
