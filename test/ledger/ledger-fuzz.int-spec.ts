// Ledger invariant fuzz (in the spirit of Blnk's and TigerBeetle's): random fast-check sequences
// of top-ups (and their replays), user adjustments, holds, usage events (with and without a hold,
// priced and unpriced, and replays), releases, contributor adjustments, late pricing + reprice and
// on-chain settlement, against the real app (HTTP, Postgres, Anvil). A model computed here, with
// its own arithmetic, says what every balance must be. After every step:
// - the ledger check is ok: each journal transaction and all postings sum to zero, stored
//   balances equal their postings, held == sum of active holds, rollups and settlement consistent;
// - every user's balance and held, and every contributor's payable / in settlement / paid equal
//   the model's, to the atto;
// - every priced event has charge == payout + margin and exactly the oracle's amounts.
import { Queue } from 'bullmq';
import fc from 'fast-check';
import type { Address } from 'viem';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { QUEUE_SETTLEMENT } from '../../src/queue/queue-names.js';
import { randomAddress, startSettlementHarness, usdcBalance, type SettlementHarness } from '../settlement/support/settlement-harness.js';
import { oracleAmounts, ORACLE_OCCURRED_AT, ORACLE_PRICE, ORACLE_PRICE_BODY, type OraclePrice, type OracleTier, type UsageBody } from '../reliability/support/usage-oracle.js';

const RUNS = Number(process.env.LEDGER_FUZZ_RUNS ?? 5);
const STEPS_MAX = Number(process.env.LEDGER_FUZZ_STEPS ?? 30);
/** About half a second per step on a busy 2-core machine (each step checks every balance). */
const TEST_TIMEOUT_MS = 60_000 + RUNS * STEPS_MAX * 500;
const SEED = process.env.LEDGER_FUZZ_SEED === undefined ? undefined : Number(process.env.LEDGER_FUZZ_SEED);
const CENT_ATTO = 10n ** 16n;
const MICRO_ATTO = 10n ** 12n;
const MIN_PAYOUT_ATTO = 10n ** 18n; // the harness sets SETTLEMENT_MIN_PAYOUT_USD=1
const LATE_PRICE_BODY = { input_usd_per_mtok: '0.5', output_usd_per_mtok: '1.5', effective_from: '2026-01-01T00:00:00Z' };
const LATE_PRICE: OraclePrice = { inputAttoPerMtok: 5n * 10n ** 17n, outputAttoPerMtok: 15n * 10n ** 17n, cachedAttoPerMtok: 5n * 10n ** 17n };

type HoldStatus = 'active' | 'captured' | 'released';
interface UserModel {
  balanceAtto: bigint;
  holds: Map<string, { amountAtto: bigint; status: HoldStatus }>;
}
interface ContributorModel {
  tier: OracleTier;
  address: Address;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
}
interface EventModel {
  body: UsageBody;
  tier: OracleTier;
  late: boolean;
  priced: boolean;
}

/** Everything the fuzz has done, across runs (settlement pays every contributor at once). */
class LedgerModel {
  readonly users = new Map<string, UserModel>();
  readonly contributors = new Map<string, ContributorModel>();
  readonly events = new Map<string, EventModel>();
  readonly lateModelsPriced = new Set<string>();

  user(id: string): UserModel {
    let user = this.users.get(id);
    if (!user) this.users.set(id, (user = { balanceAtto: 0n, holds: new Map() }));
    return user;
  }

  heldAtto(user: UserModel): bigint {
    let total = 0n;
    for (const hold of user.holds.values()) if (hold.status === 'active') total += hold.amountAtto;
    return total;
  }

  bill(event: EventModel): void {
    const price = event.late ? LATE_PRICE : ORACLE_PRICE;
    const amounts = oracleAmounts(event.body, { price, tier: event.tier });
    this.user(event.body.user_id).balanceAtto -= amounts.chargeAtto;
    this.contributors.get(event.body.contributor_id)!.payableAtto += amounts.payoutAtto;
    event.priced = true;
  }
}

type Op =
  | { kind: 'topup'; user: number; cents: number }
  | { kind: 'topupReplay' }
  | { kind: 'adjustUser'; user: number; cents: number }
  | { kind: 'hold'; user: number; cents: number }
  | { kind: 'release'; pick: number }
  | { kind: 'usage'; user: number; contributor: number; prompt: number; cached: number; completion: number; reasoning: number; hold: number | null; late: boolean }
  | { kind: 'replayUsage'; pick: number }
  | { kind: 'adjustContributor'; contributor: number; cents: number }
  | { kind: 'priceLate' }
  | { kind: 'settle' }
  /** At once: a usage event capturing an active hold, the same event again, a release of that hold, a new hold. */
  | { kind: 'race'; user: number; contributor: number; pick: number; cents: number; prompt: number; completion: number };

const USERS_PER_RUN = 2;
const CONTRIBUTORS_PER_RUN = 2;
const index = (n: number) => fc.integer({ min: 0, max: n - 1 });

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('topup' as const), user: index(USERS_PER_RUN), cents: fc.integer({ min: 1, max: 5_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'topupReplay' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('adjustUser' as const), user: index(USERS_PER_RUN), cents: fc.integer({ min: 1, max: 500 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('hold' as const), user: index(USERS_PER_RUN), cents: fc.integer({ min: 1, max: 3_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        kind: fc.constant('usage' as const),
        user: index(USERS_PER_RUN),
        contributor: index(CONTRIBUTORS_PER_RUN),
        prompt: fc.integer({ min: 0, max: 200_000 }),
        completion: fc.integer({ min: 0, max: 100_000 }),
        cachedShare: fc.integer({ min: 0, max: 100 }),
        reasoningShare: fc.integer({ min: 0, max: 100 }),
        hold: fc.option(fc.nat(), { nil: null }),
        late: fc.boolean(),
      })
      .map(({ cachedShare, reasoningShare, ...op }) => ({
        ...op,
        cached: Math.floor((op.prompt * cachedShare) / 100),
        reasoning: Math.floor((op.completion * reasoningShare) / 100),
      })),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replayUsage' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('adjustContributor' as const), contributor: index(CONTRIBUTORS_PER_RUN), cents: fc.integer({ min: -2_000, max: 2_000 }).filter((c) => c !== 0) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'priceLate' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('race' as const),
      user: index(USERS_PER_RUN),
      contributor: index(CONTRIBUTORS_PER_RUN),
      pick: fc.nat(),
      cents: fc.integer({ min: 1, max: 3_000 }),
      prompt: fc.integer({ min: 0, max: 100_000 }),
      completion: fc.integer({ min: 0, max: 50_000 }),
    }),
  },
);

const usd = (atto: bigint) => formatAttoAsUsd(atto);
const centsUsd = (cents: number) => usd(BigInt(cents) * CENT_ATTO);

describe('ledger invariant fuzz (fast-check, real app, Postgres and Anvil)', () => {
  let h: SettlementHarness;
  const model = new LedgerModel();
  let runCounter = 0;
  const stats: Record<string, number> = {};

  beforeAll(async () => {
    h = await startSettlementHarness('ledger_fuzz');
    await h.t.admin(h.t.http.post('/v1/admin/prices')).send(ORACLE_PRICE_BODY).expect(201);
  }, 120_000);
  afterAll(async () => {
    // Settlements enqueue send jobs (nobody consumes them here): leave nothing in the shared Redis.
    if (h) {
      const queue = new Queue(QUEUE_SETTLEMENT, { connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: h.queuePrefix });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await h?.close();
  });

  async function expectInvariants(step: string): Promise<void> {
    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    if (!check.body.ok || check.body.postings_sum_atto !== '0' || check.body.unbalanced_entries !== 0) {
      throw new Error(`after ${step}: ledger check failed: ${JSON.stringify(check.body)}`);
    }
    for (const [userId, user] of model.users) {
      const res = await h.t.admin(h.t.http.get(`/v1/users/${userId}/balance`));
      const actual = res.status === 404 ? { balance: 0n, held: 0n } : { balance: parseUsdToAtto(res.body.balance_usd, { allowNegative: true }), held: parseUsdToAtto(res.body.held_usd) };
      const expected = { balance: user.balanceAtto, held: model.heldAtto(user) };
      if (actual.balance !== expected.balance || actual.held !== expected.held) {
        throw new Error(`after ${step}: user ${userId} is ${JSON.stringify(stringify(actual))}, model says ${JSON.stringify(stringify(expected))}`);
      }
    }
    for (const [contributorId, c] of model.contributors) {
      const res = await h.t.admin(h.t.http.get(`/v1/contributors/${contributorId}/balance`)).expect(200);
      const actual = {
        payable: parseUsdToAtto(res.body.payable_usd, { allowNegative: true }),
        inSettlement: parseUsdToAtto(res.body.in_settlement_usd),
        paid: parseUsdToAtto(res.body.paid_usd),
      };
      const expected = { payable: c.payableAtto, inSettlement: c.inSettlementAtto, paid: c.paidAtto };
      if (actual.payable !== expected.payable || actual.inSettlement !== expected.inSettlement || actual.paid !== expected.paid) {
        throw new Error(`after ${step}: contributor ${contributorId} is ${JSON.stringify(stringify(actual))}, model says ${JSON.stringify(stringify(expected))}`);
      }
      const onChain = await usdcBalance(h, c.address);
      if (onChain * MICRO_ATTO !== c.paidAtto) throw new Error(`after ${step}: contributor ${contributorId} holds ${onChain} micro-USDC on chain, ledger paid ${c.paidAtto} atto`);
    }
    const wrong = await h.db.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM usage_events WHERE status = 'priced' AND (charge_atto IS NULL OR charge_atto <> payout_atto + margin_atto)",
    );
    if (wrong.rows[0]!.n !== '0') throw new Error(`after ${step}: ${wrong.rows[0]!.n} events with charge != payout + margin`);
  }

  async function expectEventAmounts(): Promise<void> {
    const rows = await h.db.pool.query<{ event_id: string; status: string; charge_atto: string | null; payout_atto: string | null; margin_atto: string | null }>(
      'SELECT event_id, status, charge_atto, payout_atto, margin_atto FROM usage_events',
    );
    expect(rows.rows).toHaveLength(model.events.size);
    for (const row of rows.rows) {
      const event = model.events.get(row.event_id)!;
      expect(row.status).toBe(event.priced ? 'priced' : 'unpriced');
      if (!event.priced) continue;
      const amounts = oracleAmounts(event.body, { price: event.late ? LATE_PRICE : ORACLE_PRICE, tier: event.tier });
      expect([row.charge_atto, row.payout_atto, row.margin_atto]).toEqual([amounts.chargeAtto, amounts.payoutAtto, amounts.marginAtto].map(String));
    }
  }

  async function runSequence(ops: Op[]): Promise<void> {
    runCounter += 1;
    const tag = `f${runCounter}`;
    const users = Array.from({ length: USERS_PER_RUN }, (_, i) => `u_${tag}_${i}`);
    const contributors = Array.from({ length: CONTRIBUTORS_PER_RUN }, (_, i) => `c_${tag}_${i}`);
    const lateModel = `fuzz/late-${tag}`;
    const holds: Array<{ holdId: string; userId: string }> = [];
    const runEvents: string[] = [];
    let lastTopup: { userId: string; cents: number; reference: string } | null = null;
    for (const [i, id] of contributors.entries()) {
      const tier: OracleTier = i % 2 === 0 ? 'standard' : 'premium';
      const address = randomAddress();
      await h.t.admin(h.t.http.put(`/v1/admin/contributors/${id}`)).send({ tier, payout_address: address }).expect(201);
      model.contributors.set(id, { tier, address, payableAtto: 0n, inSettlementAtto: 0n, paidAtto: 0n });
    }

    for (const [n, op] of ops.entries()) {
      const step = `${tag} step ${n} ${JSON.stringify(op)}`;
      stats[op.kind] = (stats[op.kind] ?? 0) + 1;
      switch (op.kind) {
        case 'topup': {
          const userId = users[op.user]!;
          const reference = `${tag}-topup-${n}`;
          await h.t.admin(h.t.http.post(`/v1/admin/users/${userId}/credits`)).send({ amount_usd: centsUsd(op.cents), reference }).expect(201);
          model.user(userId).balanceAtto += BigInt(op.cents) * CENT_ATTO;
          lastTopup = { userId, cents: op.cents, reference };
          break;
        }
        case 'topupReplay': {
          if (!lastTopup) break;
          const { userId, cents, reference } = lastTopup;
          await h.t.admin(h.t.http.post(`/v1/admin/users/${userId}/credits`)).send({ amount_usd: centsUsd(cents), reference }).expect(200);
          await h.t.admin(h.t.http.post(`/v1/admin/users/${userId}/credits`)).send({ amount_usd: centsUsd(cents + 1), reference }).expect(409);
          break;
        }
        case 'adjustUser': {
          const userId = users[op.user]!;
          await h.t.admin(h.t.http.post(`/v1/admin/users/${userId}/credits`)).send({ amount_usd: `-${centsUsd(op.cents)}`, reference: `${tag}-adj-${n}`, reason: 'fuzz correction' }).expect(201);
          model.user(userId).balanceAtto -= BigInt(op.cents) * CENT_ATTO;
          break;
        }
        case 'hold': {
          const userId = users[op.user]!;
          const user = model.user(userId);
          const amountAtto = BigInt(op.cents) * CENT_ATTO;
          const holdId = `${tag}-hold-${n}`;
          const expected = user.balanceAtto - model.heldAtto(user) >= amountAtto ? 201 : 402;
          await h.t.admin(h.t.http.post('/v1/holds')).send({ hold_id: holdId, user_id: userId, amount_usd: centsUsd(op.cents), expires_in_seconds: 3600 }).expect(expected);
          if (expected === 201) {
            user.holds.set(holdId, { amountAtto, status: 'active' });
            holds.push({ holdId, userId });
          }
          break;
        }
        case 'release': {
          if (holds.length === 0) break;
          const { holdId, userId } = holds[op.pick % holds.length]!;
          const hold = model.user(userId).holds.get(holdId)!;
          const res = await h.t.admin(h.t.http.post(`/v1/holds/${holdId}/release`));
          expect(res.status).toBe(hold.status === 'captured' ? 409 : 200);
          if (hold.status === 'active') hold.status = 'released';
          break;
        }
        case 'usage': {
          const userId = users[op.user]!;
          const contributorId = contributors[op.contributor]!;
          const userHolds = holds.filter((x) => x.userId === userId);
          const holdId = op.hold !== null && userHolds.length > 0 ? userHolds[op.hold % userHolds.length]!.holdId : undefined;
          const body: UsageBody = {
            event_id: `${tag}-ev-${n}`,
            user_id: userId,
            contributor_id: contributorId,
            model: op.late ? lateModel : ORACLE_PRICE_BODY.model,
            occurred_at: ORACLE_OCCURRED_AT,
            usage: { prompt_tokens: op.prompt, completion_tokens: op.completion, cached_tokens: op.cached, reasoning_tokens: op.reasoning },
            ...(holdId ? { hold_id: holdId } : {}),
          };
          const event: EventModel = { body, tier: model.contributors.get(contributorId)!.tier, late: op.late, priced: false };
          const pricedNow = !op.late || model.lateModelsPriced.has(lateModel);
          await h.t.admin(h.t.http.post('/v1/usage-events')).send(body).expect(pricedNow ? 201 : 202);
          model.events.set(body.event_id, event);
          runEvents.push(body.event_id);
          if (pricedNow) model.bill(event);
          if (holdId) {
            const hold = model.user(userId).holds.get(holdId)!;
            if (hold.status === 'active') hold.status = 'captured';
          }
          break;
        }
        case 'replayUsage': {
          if (runEvents.length === 0) break;
          const event = model.events.get(runEvents[op.pick % runEvents.length]!)!;
          await h.t.admin(h.t.http.post('/v1/usage-events')).send(event.body).expect(200);
          await h.t.admin(h.t.http.post('/v1/usage-events')).send({ ...event.body, usage: { ...event.body.usage, completion_tokens: event.body.usage.completion_tokens + 1 } }).expect(409);
          break;
        }
        case 'adjustContributor': {
          const contributorId = contributors[op.contributor]!;
          const amount = op.cents < 0 ? `-${centsUsd(-op.cents)}` : centsUsd(op.cents);
          await h.t.admin(h.t.http.post(`/v1/admin/contributors/${contributorId}/adjustments`)).send({ amount_usd: amount, reason: 'fuzz', reference: `${tag}-cadj-${n}` }).expect(201);
          model.contributors.get(contributorId)!.payableAtto += BigInt(op.cents) * CENT_ATTO;
          break;
        }
        case 'priceLate': {
          if (!model.lateModelsPriced.has(lateModel)) {
            await h.t.admin(h.t.http.post('/v1/admin/prices')).send({ model: lateModel, ...LATE_PRICE_BODY }).expect(201);
            model.lateModelsPriced.add(lateModel);
          }
          const res = await h.t.admin(h.t.http.post('/v1/admin/usage-events/reprice')).expect(200);
          const waiting = [...model.events.values()].filter((e) => !e.priced && model.lateModelsPriced.has(e.body.model));
          expect(res.body.priced).toBe(waiting.length);
          for (const e of waiting) model.bill(e);
          break;
        }
        case 'settle':
          await settle(step);
          break;
        case 'race':
          await race(op, { tag, n, users, contributors, holds, runEvents });
          break;
      }
      await expectInvariants(step);
    }
    await expectEventAmounts();
  }

  /**
   * Concurrent requests whose order the server decides: the model learns the winner from the
   * answers (and the hold's final status) and then must agree with every balance to the atto.
   */
  async function race(
    op: Extract<Op, { kind: 'race' }>,
    ctx: { tag: string; n: number; users: string[]; contributors: string[]; holds: Array<{ holdId: string; userId: string }>; runEvents: string[] },
  ): Promise<void> {
    const userId = ctx.users[op.user]!;
    const user = model.user(userId);
    const active = ctx.holds.filter((x) => x.userId === userId && user.holds.get(x.holdId)!.status === 'active');
    const target = active.length > 0 ? active[op.pick % active.length]!.holdId : undefined;
    const contributorId = ctx.contributors[op.contributor]!;
    const body: UsageBody = {
      event_id: `${ctx.tag}-race-${ctx.n}`,
      user_id: userId,
      contributor_id: contributorId,
      model: ORACLE_PRICE_BODY.model,
      occurred_at: ORACLE_OCCURRED_AT,
      usage: { prompt_tokens: op.prompt, completion_tokens: op.completion, cached_tokens: 0, reasoning_tokens: 0 },
      ...(target ? { hold_id: target } : {}),
    };
    const newHoldId = `${ctx.tag}-racehold-${ctx.n}`;
    const [first, second, release, hold] = await Promise.all([
      h.t.admin(h.t.http.post('/v1/usage-events')).send(body),
      h.t.admin(h.t.http.post('/v1/usage-events')).send(body),
      target ? h.t.admin(h.t.http.post(`/v1/holds/${target}/release`)) : Promise.resolve(null),
      h.t.admin(h.t.http.post('/v1/holds')).send({ hold_id: newHoldId, user_id: userId, amount_usd: centsUsd(op.cents), expires_in_seconds: 3600 }),
    ]);
    // Exactly one of the two identical events is the creation, the other its replay.
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    const event: EventModel = { body, tier: model.contributors.get(contributorId)!.tier, late: false, priced: false };
    model.events.set(body.event_id, event);
    ctx.runEvents.push(body.event_id);
    model.bill(event);
    if (target) {
      // Capture and release race: whichever the hold row says won; a lost release is a 409.
      const final = await h.t.admin(h.t.http.get(`/v1/holds/${target}`)).expect(200);
      expect(['captured', 'released']).toContain(final.body.status);
      expect(release!.status).toBe(final.body.status === 'released' ? 200 : 409);
      user.holds.get(target)!.status = final.body.status;
    }
    expect([201, 402]).toContain(hold.status);
    if (hold.status === 201) {
      user.holds.set(newHoldId, { amountAtto: BigInt(op.cents) * CENT_ATTO, status: 'active' });
      ctx.holds.push({ holdId: newHoldId, userId });
    }
  }

  /** Expected lines: payable >= minimum, truncated to whole micro-USDC; then sent and confirmed on Anvil. */
  async function settle(step: string): Promise<void> {
    const expected = new Map<string, bigint>();
    for (const [id, c] of model.contributors) {
      if (c.payableAtto >= MIN_PAYOUT_ATTO) expected.set(id, (c.payableAtto / MICRO_ATTO) * MICRO_ATTO);
    }
    const res = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({});
    if (expected.size === 0) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('empty');
      return;
    }
    expect(res.status).toBe(201);
    expect(res.body.payout_count).toBe(expected.size);
    for (const [id, atto] of expected) {
      const c = model.contributors.get(id)!;
      c.payableAtto -= atto;
      c.inSettlementAtto += atto;
    }
    await expectInvariants(`${step} (created, before sending)`);
    const outcome = await h.sender.sendSettlement(res.body.settlement_id);
    expect(outcome).toEqual({ kind: 'finished', status: 'confirmed' });
    for (const [id, atto] of expected) {
      const c = model.contributors.get(id)!;
      c.inSettlementAtto -= atto;
      c.paidAtto += atto;
    }
  }

  it('keeps every ledger invariant after every step of random operation sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 10, maxLength: STEPS_MAX, size: 'max' }), async (ops) => {
        await runSequence(ops);
      }),
      // No shrinking: each attempt replays against the same database, and the failing step is
      // already named in the error (run tag, step number, operation).
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // The sequences did exercise the interesting paths.
    expect(Object.keys(stats).length).toBeGreaterThanOrEqual(8);
    process.stdout.write(`\n[ledger-fuzz] ${RUNS} runs, ops: ${JSON.stringify(stats)}, events: ${model.events.size}\n`);
  }, TEST_TIMEOUT_MS);
});

function stringify(record: Record<string, bigint>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v.toString()]));
}
