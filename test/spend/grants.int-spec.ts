// Credit grants that expire (api.md "Spend controls (users)", docs/spend-controls.md "Credit
// grants") on real Postgres: the credit with a grant, consumption in expiry order on both usage
// write paths, holds paying from grants, breakage exactly once (twice at the same time, and after
// a crash between grants), the refund rule, the balance, 4xx that change nothing, and the ledger
// check (incremental and full) after each test.
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { GrantsService } from '../../src/modules/spend/grants.service.js';
import { SpendClock } from '../../src/modules/spend/spend-clock.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { testAppForSuite } from '../support/test-app.js';

const MODEL = 'acme/grant-model';
const HOUR = 3_600_000;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

describe('credit grants', () => {
  const t = testAppForSuite('grants');
  const sql = suiteSql(t);
  let clock: SpendClock;
  /** The charge of one event (1000 prompt tokens), atto-USD. */
  let chargeAtto: bigint;
  let n = 0;

  const event = (userId: string, extra: Record<string, unknown> = {}) => ({
    event_id: `gev-${(n += 1)}`,
    user_id: userId,
    contributor_id: 'c_std',
    model: MODEL,
    usage: { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
    ...extra,
  });
  const ingest = async (userId: string, extra: Record<string, unknown> = {}) => (await t.admin(t.http.post('/v1/usage-events')).send(event(userId, extra)).expect(201)).body;
  const credit = (userId: string, body: Record<string, unknown>) => t.admin(t.http.post(`/v1/admin/users/${userId}/credits`)).send(body);
  const grant = (userId: string, reference: string, amountUsd: string, expiresAt: Date, name?: string) =>
    credit(userId, { amount_usd: amountUsd, reference, grant: { expires_at: expiresAt.toISOString(), ...(name ? { name } : {}) } });
  const balance = async (userId: string) => (await t.admin(t.http.get(`/v1/users/${userId}/balance`)).expect(200)).body;
  const accountAtto = async (code: string) => {
    const r = await sql.query<{ balance_atto: string }>('SELECT balance_atto FROM accounts WHERE code = $1', [code]);
    return r.rows[0] ? BigInt(r.rows[0].balance_atto) : 0n;
  };
  const entries = async (kind: string) => (await sql.query<{ ref: string; account_codes: string[]; amounts_atto: string[] }>('SELECT ref, account_codes, amounts_atto::text[] AS amounts_atto FROM journal_entries WHERE kind = $1 ORDER BY id', [kind])).rows;
  const inHours = (h: number) => new Date(clock.now().getTime() + h * HOUR);

  beforeAll(async () => {
    await seedBilling(t);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: MODEL, input_usd_per_mtok: '1000', output_usd_per_mtok: '1000', effective_from: '2024-01-01T00:00:00Z' }).expect(201);
    clock = t.app.get(SpendClock);
    chargeAtto = atto((await ingest('u_probe')).charge_usd);
    expect(chargeAtto).toBeGreaterThan(0n);
  });
  afterEach(async () => {
    clock.standAt(null);
    await expectLedgerClean(t);
  });

  it('credits a grant into its own account (201), replays it (200), refuses another payload with the reference (409)', async () => {
    const expiresAt = inHours(48);
    const created = await grant('u_g1', 'promo-1', '5', expiresAt, 'Welcome').expect(201);
    expect(created.body).toMatchObject({ user_id: 'u_g1', balance_usd: '5', held_usd: '0', available_usd: '5', granted_usd: '5' });
    expect(created.body.grants).toEqual([{ grant_id: 'promo-1', name: 'Welcome', amount_usd: '5', remaining_usd: '5', expires_at: expiresAt.toISOString() }]);
    expect(await accountAtto('grant:promo-1')).toBe(atto('5'));
    expect(await accountAtto('user:u_g1')).toBe(0n);
    const [entry] = await entries('grant');
    expect(entry).toEqual({ ref: 'user_credit:promo-1', account_codes: ['grant:promo-1', 'platform:promotions'], amounts_atto: [atto('5').toString(), (-atto('5')).toString()] });

    const replay = await grant('u_g1', 'promo-1', '5', expiresAt, 'Welcome').expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await grant('u_g1', 'promo-1', '5', inHours(49), 'Welcome').expect(409);
    await grant('u_g1', 'promo-1', '5', expiresAt, 'Other').expect(409);
    await credit('u_g1', { amount_usd: '5', reference: 'promo-1' }).expect(409);
    // A purchased credit's reference cannot be replayed as a grant either.
    await credit('u_g1', { amount_usd: '1', reference: 'buy-1' }).expect(201);
    await grant('u_g1', 'buy-1', '1', expiresAt).expect(409);
    expect((await balance('u_g1')).balance_usd).toBe('6');
  });

  it('bad grants are a 400 that changes nothing', async () => {
    await credit('u_bad', { amount_usd: '2', reference: 'bad-seed' }).expect(201);
    const before = await balance('u_bad');
    const journal = (await sql.query<{ n: string }>('SELECT count(*) AS n FROM journal_entries')).rows[0]!.n;
    const bad: Array<Record<string, unknown>> = [
      { amount_usd: '1', reference: 'bad-1', grant: { expires_at: new Date(Date.now() - 1000).toISOString() } },
      { amount_usd: '1', reference: 'bad-2', grant: { expires_at: clock.now().toISOString() } },
      { amount_usd: '1', reference: 'bad-3', grant: { expires_at: inHours(731 * 24).toISOString() } },
      { amount_usd: '-1', reference: 'bad-4', reason: 'x', grant: { expires_at: inHours(1).toISOString() } },
      { amount_usd: '1', reference: 'bad-5', grant: { expires_at: 'tomorrow' } },
      { amount_usd: '1', reference: 'bad-6', grant: { expires_at: inHours(1).toISOString(), name: '  ' } },
      { amount_usd: '1', reference: 'bad-7', grant: { expires_at: inHours(1).toISOString(), extra: 1 } },
      { amount_usd: '1', reference: 'bad-8', grant: {} },
    ];
    for (const body of bad) {
      const res = await credit('u_bad', body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect(await balance('u_bad')).toEqual(before);
    expect((await sql.query<{ n: string }>('SELECT count(*) AS n FROM journal_entries')).rows[0]!.n).toBe(journal);
    expect((await sql.query('SELECT 1 FROM user_grants WHERE user_id = $1', ['u_bad'])).rowCount).toBe(0);
    // The clock under test decides "future": at a stood clock, an instant an hour after it is accepted.
    clock.standAt(new Date(Date.now() - 10 * HOUR));
    await grant('u_bad', 'bad-ok', '1', new Date(Date.now() - 9 * HOUR)).expect(201);
  });

  it('charges take the grant expiring first first, then the next, then purchased credit (one-statement and transaction paths)', async () => {
    await credit('u_ord', { amount_usd: '10', reference: 'ord-buy' }).expect(201);
    // early holds 1.5 charges, late 1 charge.
    await grant('u_ord', 'ord-late', formatAttoAsUsd(chargeAtto), inHours(72), 'late').expect(201);
    await grant('u_ord', 'ord-early', formatAttoAsUsd((chargeAtto * 3n) / 2n), inHours(24), 'early').expect(201);
    const e1 = await ingest('u_ord'); // the one statement rolls back on the guard, the transaction path draws
    expect(await accountAtto('grant:ord-early')).toBe(chargeAtto / 2n);
    expect(await accountAtto('grant:ord-late')).toBe(chargeAtto);
    expect(await accountAtto('user:u_ord')).toBe(atto('10'));
    await ingest('u_ord'); // half from early (emptied), half from late
    expect(await accountAtto('grant:ord-early')).toBe(0n);
    expect(await accountAtto('grant:ord-late')).toBe(chargeAtto - (chargeAtto - chargeAtto / 2n));
    // A batch of 70 (the transaction path): what is left of late, then purchased credit.
    const batch = Array.from({ length: 70 }, () => event('u_ord'));
    const res = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: batch }).expect(200);
    expect(res.body.results.every((r: { status: string }) => r.status === 'priced')).toBe(true);
    expect(await accountAtto('grant:ord-late')).toBe(0n);
    const spentFromPurchased = 72n * chargeAtto - (chargeAtto * 5n) / 2n;
    expect(await accountAtto('user:u_ord')).toBe(atto('10') - spentFromPurchased);
    const uses = (await entries('grant_use')).filter((e) => e.account_codes.includes('user:u_ord'));
    expect(uses[0]).toEqual({ ref: e1.event_id, account_codes: ['grant:ord-early', 'user:u_ord'], amounts_atto: [(-chargeAtto).toString(), chargeAtto.toString()] });
    expect(uses[1]!.account_codes).toEqual(['grant:ord-early', 'grant:ord-late', 'user:u_ord']);
    const b = await balance('u_ord');
    expect(b).toMatchObject({ granted_usd: '0', balance_usd: formatAttoAsUsd(atto('10') - spentFromPurchased) });
    expect(b.grants.map((g: { grant_id: string; remaining_usd: string }) => `${g.grant_id}=${g.remaining_usd}`)).toEqual(['ord-early=0', 'ord-late=0']);
  });

  it('30 concurrent events of a user with a grant of 10 charges draw exactly 10 from it, never more', async () => {
    await credit('u_race', { amount_usd: '100', reference: 'race-buy' }).expect(201);
    await grant('u_race', 'race-g', formatAttoAsUsd(chargeAtto * 10n), inHours(6)).expect(201);
    await Promise.all(Array.from({ length: 30 }, () => ingest('u_race')));
    expect(await accountAtto('grant:race-g')).toBe(0n);
    expect(await accountAtto('user:u_race')).toBe(atto('100') - 20n * chargeAtto);
    const drawn = (await entries('grant_use')).filter((e) => e.account_codes.includes('grant:race-g'));
    expect(drawn.reduce((sum, e) => sum - BigInt(e.amounts_atto[e.account_codes.indexOf('grant:race-g')]!), 0n)).toBe(chargeAtto * 10n);
  });

  it('a user without grants in the same group is billed from purchased credit only, and a grant expired at the charge pays nothing', async () => {
    await credit('u_plain', { amount_usd: '3', reference: 'plain-buy' }).expect(201);
    await credit('u_exp', { amount_usd: '3', reference: 'exp-buy' }).expect(201);
    await grant('u_exp', 'exp-g', '1', inHours(1)).expect(201);
    clock.standAt(inHours(1)); // expires_at itself: expired
    const res = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: [event('u_plain'), event('u_exp')] }).expect(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced']);
    expect(await accountAtto('grant:exp-g')).toBe(atto('1'));
    expect(await accountAtto('user:u_exp')).toBe(atto('3') - chargeAtto);
    expect(await accountAtto('user:u_plain')).toBe(atto('3') - chargeAtto);
    const b = await balance('u_exp');
    expect(b).toMatchObject({ granted_usd: '0', balance_usd: formatAttoAsUsd(atto('3') - chargeAtto) });
    expect(b.grants).toEqual([expect.objectContaining({ grant_id: 'exp-g', amount_usd: '1', remaining_usd: '0' })]);
  });

  it('holds count unexpired grants as available; a captured hold is paid from the grant', async () => {
    await grant('u_hold', 'hold-g', formatAttoAsUsd(chargeAtto * 2n), inHours(5)).expect(201);
    const over = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'gh-over', user_id: 'u_hold', amount_usd: formatAttoAsUsd(chargeAtto * 2n + 1n) }).expect(402);
    expect(over.body.error.code).toBe('insufficient_funds');
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'gh-1', user_id: 'u_hold', amount_usd: formatAttoAsUsd(chargeAtto * 2n) }).expect(201);
    expect(await balance('u_hold')).toMatchObject({ balance_usd: formatAttoAsUsd(chargeAtto * 2n), held_usd: formatAttoAsUsd(chargeAtto * 2n), available_usd: '0' });
    await ingest('u_hold', { hold_id: 'gh-1' });
    expect(await accountAtto('grant:hold-g')).toBe(chargeAtto);
    expect(await balance('u_hold')).toMatchObject({ balance_usd: formatAttoAsUsd(chargeAtto), held_usd: '0', available_usd: formatAttoAsUsd(chargeAtto) });
    // After expiry the grant no longer counts.
    clock.standAt(inHours(5));
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'gh-2', user_id: 'u_hold', amount_usd: '0.000001' }).expect(402);
  });

  it('breakage moves the remainder to revenue exactly once, run twice at the same time', async () => {
    await grant('u_brk', 'brk-g', formatAttoAsUsd(chargeAtto * 3n), inHours(2), 'trial').expect(201);
    await ingest('u_brk');
    const grants = t.app.get(GrantsService);
    await grants.breakDue(); // earlier tests' grants already due
    expect(await grants.breakDue()).toBe(0);
    const revenueBefore = (await sql.query<{ s: string }>(`SELECT coalesce(sum(amount_atto), 0) AS s FROM ledger_postings WHERE account_code = 'platform:revenue'`)).rows[0]!.s;
    clock.standAt(inHours(2));
    const [a, b] = await Promise.all([grants.breakDue(), grants.breakDue()]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    expect(await grants.breakDue()).toBe(0);
    const breakage = (await entries('grant_breakage')).filter((e) => e.ref === 'brk-g');
    expect(breakage).toEqual([{ ref: 'brk-g', account_codes: ['grant:brk-g', 'platform:revenue'], amounts_atto: [(-chargeAtto * 2n).toString(), (chargeAtto * 2n).toString()] }]);
    const row = (await sql.query<{ breakage_atto: string; expired_at: Date | null }>('SELECT breakage_atto, expired_at FROM user_grants WHERE grant_id = $1', ['brk-g'])).rows[0]!;
    expect(BigInt(row.breakage_atto)).toBe(chargeAtto * 2n);
    expect(row.expired_at).not.toBeNull();
    const revenueAfter = (await sql.query<{ s: string }>(`SELECT coalesce(sum(amount_atto), 0) AS s FROM ledger_postings WHERE account_code = 'platform:revenue'`)).rows[0]!.s;
    // Revenue grew by the breakage of the grants this run broke (brk-g's and earlier tests' grants due by now), each once.
    const brokenNow = (await sql.query<{ s: string }>('SELECT coalesce(sum(breakage_atto), 0) AS s FROM user_grants WHERE expired_at = $1', [clock.now()])).rows[0]!.s;
    expect(BigInt(revenueAfter) - BigInt(revenueBefore)).toBe(BigInt(brokenNow));
    expect(await accountAtto('grant:brk-g')).toBe(0n);
    const bal = await balance('u_brk');
    expect(bal.grants).toEqual([expect.objectContaining({ grant_id: 'brk-g', name: 'trial', remaining_usd: '0' })]);
  });

  it('breakage interrupted between grants (a crash) finishes on the next run, each grant broken once', async () => {
    const grants = t.app.get(GrantsService);
    // Far ahead, with every earlier grant broken: only this test's grants fall due.
    clock.standAt(new Date(Date.now() + 1000 * HOUR));
    await grants.breakDue();
    await grant('u_crash', 'crash-a', '1', inHours(1)).expect(201);
    await grant('u_crash', 'crash-b', '2', inHours(1)).expect(201);
    clock.standAt(inHours(1));
    await expect(
      grants.breakDue(undefined, () => {
        throw new Error('worker crashed');
      }),
    ).rejects.toThrow('worker crashed');
    const done = (await sql.query<{ grant_id: string }>('SELECT grant_id FROM user_grants WHERE user_id = $1 AND expired_at IS NOT NULL', ['u_crash'])).rows;
    expect(done).toHaveLength(1);
    await expectLedgerClean(t);
    expect(await grants.breakDue()).toBe(1);
    const refs = (await entries('grant_breakage')).map((e) => e.ref).filter((r) => r.startsWith('crash-')).sort();
    expect(refs).toEqual(['crash-a', 'crash-b']);
    expect(await accountAtto('grant:crash-a')).toBe(0n);
    expect(await accountAtto('grant:crash-b')).toBe(0n);
  });

  it('a refund of grant-paid spend goes back to the grant while it is open, to revenue once it broke, never to purchased credit', async () => {
    await credit('u_ref', { amount_usd: '4', reference: 'ref-buy' }).expect(201);
    await grant('u_ref', 'ref-g', formatAttoAsUsd(chargeAtto + chargeAtto / 2n), inHours(3)).expect(201);
    const e1 = await ingest('u_ref'); // all from the grant
    const e2 = await ingest('u_ref'); // half grant, half purchased
    expect(await accountAtto('grant:ref-g')).toBe(0n);
    const purchasedBefore = await accountAtto('user:u_ref');
    const refund = (eventId: string, refundId: string, amountUsd?: string) =>
      t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`)).send({ refund_id: refundId, reason: 'disputed', ...(amountUsd ? { amount_usd: amountUsd } : {}) }).expect(201);
    await refund(e1.event_id, 'rf-1', formatAttoAsUsd(chargeAtto / 4n));
    expect(await accountAtto('grant:ref-g')).toBe(chargeAtto / 4n);
    expect(await accountAtto('user:u_ref')).toBe(purchasedBefore);
    // e2: the grant part (half) first, then purchased credit.
    await refund(e2.event_id, 'rf-2');
    expect(await accountAtto('grant:ref-g')).toBe(chargeAtto / 4n + chargeAtto / 2n);
    expect(await accountAtto('user:u_ref')).toBe(purchasedBefore + (chargeAtto - chargeAtto / 2n));
    // Broken: the rest of e1's refund is revenue, not the user's.
    const overview = async () => (await t.admin(t.http.get('/v1/admin/overview')).expect(200)).body;
    const beforeBreakage = await overview();
    clock.standAt(inHours(3));
    await t.app.get(GrantsService).breakDue();
    expect(await accountAtto('grant:ref-g')).toBe(0n);
    // The admin overview: breakage is its own figure; revenue_usd (the usage margin) does not move.
    const afterBreakage = await overview();
    expect(atto(afterBreakage.breakage_usd) - atto(beforeBreakage.breakage_usd)).toBe(chargeAtto / 4n + chargeAtto / 2n);
    expect(afterBreakage.revenue_usd).toBe(beforeBreakage.revenue_usd);
    await refund(e1.event_id, 'rf-3');
    // A refund's part that a broken grant had paid is breakage too (it went to revenue).
    expect(atto((await overview()).breakage_usd) - atto(afterBreakage.breakage_usd)).toBe(chargeAtto - chargeAtto / 4n);
    expect(await accountAtto('user:u_ref')).toBe(purchasedBefore + (chargeAtto - chargeAtto / 2n));
    const [last] = (await entries('grant_refund')).filter((e) => e.ref === 'refund:rf-3');
    expect(last).toEqual({ ref: 'refund:rf-3', account_codes: ['user:u_ref', 'platform:revenue'], amounts_atto: [(-(chargeAtto - chargeAtto / 4n)).toString(), (chargeAtto - chargeAtto / 4n).toString()] });
  });

  it('an event priced later (reprice) is paid from the grants usable when it is priced', async () => {
    const late = 'acme/grant-late-model';
    await grant('u_rep', 'rep-g', '50', inHours(8)).expect(201);
    const unpriced = (await t.admin(t.http.post('/v1/usage-events')).send(event('u_rep', { model: late })).expect(202)).body;
    expect(unpriced.status).toBe('unpriced');
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: late, input_usd_per_mtok: '1000', output_usd_per_mtok: '1000', effective_from: '2024-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(await accountAtto('grant:rep-g')).toBe(atto('50') - chargeAtto);
    expect(await accountAtto('user:u_rep')).toBe(0n);
    expect((await entries('grant_use')).find((e) => e.ref === unpriced.event_id)?.account_codes).toEqual(['grant:rep-g', 'user:u_rep']);
  });

  it('the users list counts unexpired grants in the balance', async () => {
    await grant('u_list', 'list-g', '2', inHours(4)).expect(201);
    const res = await t.admin(t.http.get('/v1/admin/users?q=u_list')).expect(200);
    expect(res.body.data).toEqual([expect.objectContaining({ user_id: 'u_list', balance_usd: '2', available_usd: '2', granted_usd: '2' })]);
    clock.standAt(inHours(4));
    const later = await t.admin(t.http.get('/v1/admin/users?q=u_list')).expect(200);
    expect(later.body.data).toEqual([expect.objectContaining({ user_id: 'u_list', balance_usd: '0', granted_usd: '0' })]);
  });

  it('the admin overview counts unexpired grants in users_balance_usd, and shows them as granted_usd', async () => {
    const overview = async () => (await t.admin(t.http.get('/v1/admin/overview')).expect(200)).body;
    // Every user's balance_usd summed: what the overview's users balance must equal.
    const users = async () => {
      const res = await t.admin(t.http.get('/v1/admin/users?limit=200')).expect(200);
      expect(res.body.next_cursor).toBeNull();
      return res.body.data.reduce((sum: { balance: bigint; granted: bigint }, u: { balance_usd: string; granted_usd: string }) => ({ balance: sum.balance + atto(u.balance_usd), granted: sum.granted + atto(u.granted_usd) }), { balance: 0n, granted: 0n });
    };
    const before = await overview();
    await credit('u_ov', { amount_usd: '1', reference: 'ov-buy' }).expect(201);
    await grant('u_ov', 'ov-g', '3', inHours(2)).expect(201);
    const withGrant = await overview();
    expect(atto(withGrant.users_balance_usd) - atto(before.users_balance_usd)).toBe(atto('4'));
    expect(atto(withGrant.granted_usd) - atto(before.granted_usd)).toBe(atto('3'));
    const listed = await users();
    expect(withGrant).toMatchObject({ users_balance_usd: formatAttoAsUsd(listed.balance), granted_usd: formatAttoAsUsd(listed.granted) });
    // Past the grant's expiry, before any breakage: its remainder is no longer the user's (as balance_usd shows).
    clock.standAt(inHours(2));
    const expired = await overview();
    expect(atto(withGrant.users_balance_usd) - atto(expired.users_balance_usd)).toBeGreaterThanOrEqual(atto('3'));
    const listedLater = await users();
    expect(expired).toMatchObject({ users_balance_usd: formatAttoAsUsd(listedLater.balance), granted_usd: formatAttoAsUsd(listedLater.granted) });
  });

  it('the full ledger check (every entry of the journal) is ok after all of it', async () => {
    await t.app.get(GrantsService).breakDue(new Date(Date.now() + 1000 * HOUR));
    const full = await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200);
    expect(full.body.ok).toBe(true);
    // Every grant broke: nothing is left in grant accounts, and each breakage equals what its account held.
    const left = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM accounts WHERE kind = 'user_grant' AND balance_atto <> 0`);
    expect(left.rows[0]!.n).toBe('0');
    // The overview's breakage_usd is every atto the journal moved to revenue from expired grants.
    const moved = await sql.query<{ total: string }>(
      `SELECT coalesce(sum(p.amount), 0) AS total FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
       WHERE e.kind IN ('grant_breakage', 'grant_refund') AND p.code = 'platform:revenue'`,
    );
    expect(BigInt(moved.rows[0]!.total)).toBeGreaterThan(0n);
    expect((await t.admin(t.http.get('/v1/admin/overview')).expect(200)).body.breakage_usd).toBe(formatAttoAsUsd(BigInt(moved.rows[0]!.total)));
  });
});
