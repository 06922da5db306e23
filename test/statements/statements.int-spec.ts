// Monthly statements on real Postgres and Anvil: three months of random activity (seeded) through
// the real write paths (usage events, adjustments, settlements paid on chain), each month's
// bookings moved into that month (see bookInto). Every statement is checked against an oracle
// kept by the test, against the previous month, against its own CSV and PDF, and against the
// ledger's postings up to the month's end.
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import { contributorInSettlement, contributorPayable } from '../../src/modules/ledger/account-codes.js';
import { monthStarting, type StatementMonth } from '../../src/modules/statements/statement-month.js';
import { usdText } from '../../src/modules/statements/statement-pdf.js';
import { sqlRows, startSettlementHarness, USD_ATTO, type SettlementHarness } from '../settlement/support/settlement-harness.js';
import { parseCsvRecords, readBytes, readText } from '../support/csv.js';
import { expectLedgerClean } from '../support/billing-fixtures.js';
import { pdfText } from '../support/pdf-text.js';

const SEED = Number(process.env.STATEMENTS_TEST_SEED ?? 20261201);
const MODELS = { 'openai/gpt-4o': { input: '2.5', output: '10' }, 'anthropic/claude-x': { input: '3', output: '15' } } as const;
const CONTRIBUTORS = { c_a: 'standard', c_b: 'premium', c_idle: 'standard' } as const;
type ContributorId = keyof typeof CONTRIBUTORS;
const ACTIVE: ContributorId[] = ['c_a', 'c_b'];
/** The three months of activity; statements are checked from the month before to the current one. */
const ACTIVE_MONTHS = [monthStarting(2026, 7), monthStarting(2026, 8), monthStarting(2026, 9)];
const DAY_MS = 86_400_000;

const usd = (text: string) => parseUsdToAtto(text, { allowNegative: true });
const key = (contributorId: string, month: string) => `${contributorId}|${month}`;

interface Expected {
  earnedAtto: bigint;
  events: number;
  adjustmentsAtto: bigint;
  paidAtto: bigint;
}

let h: SettlementHarness;
let gatewayKey: string;
let ownKey: string;
const random = seededRandom(SEED);
const expected = new Map<string, Expected>();
const txHashesByMonth = new Map<string, string[]>();

function expectedFor(contributorId: string, month: string): Expected {
  const k = key(contributorId, month);
  if (!expected.has(k)) expected.set(k, { earnedAtto: 0n, events: 0, adjustmentsAtto: 0n, paidAtto: 0n });
  return expected.get(k)!;
}

function int(min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/**
 * The journal stamps entries with the database clock, so three past months cannot be booked in
 * real time. Runs `step`, then moves what it booked (journal entries other than usage, which is
 * dated by occurred_at anyway, and the adjustment and settlement rows beside them) to `at`, one
 * second apart in booking order. Test-only: the append-only trigger is lifted for that UPDATE.
 */
async function bookInto(at: Date, step: () => Promise<void>): Promise<void> {
  const [mark] = await sqlRows<{ max_id: string; now: Date }>(h, 'SELECT coalesce(max(id), 0) AS max_id, now() FROM journal_entries');
  const { max_id: before, now } = mark!;
  await step();
  const client = await h.db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('ALTER TABLE journal_entries DISABLE TRIGGER journal_entries_no_update_delete');
    await client.query(
      `UPDATE journal_entries SET created_at = $2::timestamptz + (id - $1) * interval '1 second' WHERE id > $1 AND kind <> 'usage'`,
      [before, at],
    );
    await client.query('ALTER TABLE journal_entries ENABLE TRIGGER journal_entries_no_update_delete');
    await client.query(
      `UPDATE contributor_adjustments a SET created_at = e.created_at FROM journal_entries e
       WHERE e.kind = 'adjustment' AND e.ref = 'contributor_adjustment:' || a.reference AND a.created_at >= $1`,
      [now],
    );
    await client.query(
      `UPDATE settlement_lines l SET created_at = $2,
         confirmed_at = (SELECT e.created_at FROM journal_entries e WHERE e.kind = 'settlement_paid' AND e.ref = l.id::text)
       WHERE l.created_at >= $1`,
      [now, at],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

async function postUsage(period: StatementMonth, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const contributorId = pick(ACTIVE);
    const occurredAt = new Date(period.from.getTime() + Math.floor(random() * (period.to.getTime() - period.from.getTime())));
    const res = await h.t.http
      .post('/v1/usage-events')
      .set('Authorization', `Bearer ${gatewayKey}`)
      .send({
        event_id: `ev-${period.month}-${i}-${randomBytes(3).toString('hex')}`,
        user_id: 'u_statements',
        contributor_id: contributorId,
        model: pick(Object.keys(MODELS)),
        occurred_at: occurredAt.toISOString(),
        usage: { prompt_tokens: int(1_000, 400_000), completion_tokens: int(0, 60_000), cached_tokens: 0, reasoning_tokens: 0 },
      })
      .expect(201);
    const e = expectedFor(contributorId, period.month);
    e.earnedAtto += usd(res.body.payout_usd);
    e.events += 1;
  }
}

async function adjust(period: StatementMonth): Promise<void> {
  for (let i = int(0, 2); i > 0; i -= 1) {
    const contributorId = pick(ACTIVE);
    // Up to ±4 USD with digits down to the atto.
    const amountAtto = (BigInt(int(1, 4_000)) * USD_ATTO) / 1000n + BigInt(int(1, 999_999_999));
    const signed = random() < 0.4 ? -amountAtto : amountAtto;
    await h.t
      .admin(h.t.http.post(`/v1/admin/contributors/${contributorId}/adjustments`))
      .send({ amount_usd: formatAttoAsUsd(signed), reason: `correction ${period.month}, "${i}"`, reference: `adj-${period.month}-${i}-${randomBytes(3).toString('hex')}` })
      .expect(201);
    expectedFor(contributorId, period.month).adjustmentsAtto += signed;
  }
}

async function settle(period: StatementMonth): Promise<void> {
  const result = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
  if (result.kind !== 'created') return;
  expect(await h.sender.sendSettlement(result.settlement.id)).toEqual({ kind: 'finished', status: 'confirmed' });
  const lines = await sqlRows<{ contributor_id: string; amount_micro_usdc: string; tx_hash: string }>(
    h,
    `SELECT l.contributor_id, l.amount_micro_usdc, t.tx_hash FROM settlement_lines l JOIN settlement_txs t ON t.id = l.tx_id WHERE l.settlement_id = $1 AND l.status = 'paid'`,
    [result.settlement.id],
  );
  for (const line of lines) {
    expectedFor(line.contributor_id, period.month).paidAtto += BigInt(line.amount_micro_usdc) * 10n ** 12n;
    txHashesByMonth.set(key(line.contributor_id, period.month), [...(txHashesByMonth.get(key(line.contributor_id, period.month)) ?? []), line.tx_hash]);
  }
}

/** Every month from the one before the activity to the current one. */
function monthsToCheck(): StatementMonth[] {
  const months: StatementMonth[] = [];
  const now = new Date();
  for (let m = monthStarting(2026, 6); m.from.getTime() <= now.getTime(); m = monthStarting(m.from.getUTCFullYear(), m.from.getUTCMonth() + 1)) months.push(m);
  return months;
}

/** The owed balance at `end` straight from the postings: usage dated by occurrence, the rest by booking. */
async function ledgerOwedAt(contributorId: string, end: Date): Promise<bigint> {
  const [row] = await sqlRows<{ owed: string }>(
    h,
    `SELECT coalesce(sum(p.amount_atto), 0) AS owed
     FROM ledger_postings p LEFT JOIN usage_events u ON p.kind = 'usage' AND u.event_id = p.ref
     WHERE p.account_code = ANY($1::text[]) AND (CASE WHEN p.kind = 'usage' THEN u.occurred_at ELSE p.created_at END) < $2`,
    [[contributorPayable(contributorId), contributorInSettlement(contributorId)], end],
  );
  return BigInt(row!.owed);
}

const statementPath = (contributorId: string, month: string) => `/v1/contributors/${contributorId}/statements/${month}`;

beforeAll(async () => {
  h = await startSettlementHarness('statements', { SETTLEMENT_MIN_PAYOUT_USD: '1' });
  gatewayKey = (await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
  ownKey = (await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_a' }).expect(201)).body.key;
  for (const [model, price] of Object.entries(MODELS)) {
    await h.t.admin(h.t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: price.input, output_usd_per_mtok: price.output, effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  }
  for (const [id, tier] of Object.entries(CONTRIBUTORS)) {
    await h.t.admin(h.t.http.put(`/v1/admin/contributors/${id}`)).send({ tier, payout_address: getAddress(`0x${randomBytes(20).toString('hex')}`) }).expect(201);
  }
  await h.t.admin(h.t.http.post('/v1/admin/users/u_statements/credits')).send({ amount_usd: '100000', reference: 'seed-statements' }).expect(201);
  for (const period of ACTIVE_MONTHS) {
    await postUsage(period, int(25, 40));
    await bookInto(new Date(period.from.getTime() + int(3, 12) * DAY_MS + int(0, 86_399) * 1000), () => adjust(period));
    await bookInto(new Date(period.from.getTime() + int(20, 26) * DAY_MS + int(0, 86_399) * 1000), () => settle(period));
  }
}, 180_000);

afterAll(async () => {
  await h?.close();
});

describe('monthly statements over three months of random activity', () => {
  it('chain month to month, match the oracle, tie out to the ledger at each month end and to the stored balance now', async () => {
    for (const contributorId of Object.keys(CONTRIBUTORS)) {
      let previousClosing = 0n;
      for (const period of monthsToCheck()) {
        const body = (await h.t.admin(h.t.http.get(statementPath(contributorId, period.month))).expect(200)).body;
        const opening = usd(body.opening_usd);
        const closing = usd(body.closing_usd);
        expect(body).toMatchObject({ contributor_id: contributorId, month: period.month, from: period.from.toISOString().replace('.000Z', 'Z') });
        expect(opening).toBe(previousClosing);
        expect(closing).toBe(opening + usd(body.earned_usd) - usd(body.clawed_back_usd) + usd(body.adjustments_usd) - usd(body.paid_usd));
        const want = expected.get(key(contributorId, period.month)) ?? { earnedAtto: 0n, events: 0, adjustmentsAtto: 0n, paidAtto: 0n };
        expect({ earned: usd(body.earned_usd), events: body.events, adjustments: usd(body.adjustments_usd), paid: usd(body.paid_usd), clawedBack: usd(body.clawed_back_usd) }).toEqual({
          earned: want.earnedAtto,
          events: want.events,
          adjustments: want.adjustmentsAtto,
          paid: want.paidAtto,
          clawedBack: 0n,
        });
        expect(closing).toBe(await ledgerOwedAt(contributorId, period.to));
        const payouts = body.payouts as Array<{ amount_usdc: string; tx_hash: string; confirmed_at: string }>;
        expect(payouts.map((p) => p.tx_hash).sort()).toEqual([...(txHashesByMonth.get(key(contributorId, period.month)) ?? [])].sort());
        expect(payouts.reduce((sum, p) => sum + usd(p.amount_usdc), 0n)).toBe(usd(body.paid_usd));
        for (const p of payouts) expect(Date.parse(p.confirmed_at)).toBeGreaterThanOrEqual(period.from.getTime());
        previousClosing = closing;
      }
      // The current month has every booking: its closing is the stored balance of the accounts.
      const stored = await h.ledger.balances([contributorPayable(contributorId), contributorInSettlement(contributorId)]);
      const storedOwed = [...stored.values()].reduce((sum, b) => sum + b.balanceAtto, 0n);
      expect(previousClosing).toBe(storedOwed);
    }
    // Not vacuous: every active month paid someone on chain, and adjustments of both signs were booked.
    for (const period of ACTIVE_MONTHS) expect(ACTIVE.some((c) => (txHashesByMonth.get(key(c, period.month)) ?? []).length > 0)).toBe(true);
    const adjustments = [...expected.values()].map((e) => e.adjustmentsAtto);
    expect(adjustments.some((a) => a > 0n) && adjustments.some((a) => a < 0n)).toBe(true);
    await expectLedgerClean(h.t);
  });

  it('gives CSV rows that add up to the JSON figures, and earnings rows equal to /earnings for the month', async () => {
    for (const contributorId of ACTIVE) {
      for (const period of ACTIVE_MONTHS) {
        const json = (await h.t.admin(h.t.http.get(statementPath(contributorId, period.month))).expect(200)).body;
        const csvRes = await h.t.admin(h.t.http.get(statementPath(contributorId, period.month))).set('Accept', 'text/csv').buffer(true).parse(readText as never).expect(200);
        expect(csvRes.headers['content-type']).toMatch(/^text\/csv/);
        expect(csvRes.headers['content-disposition']).toBe(`attachment; filename="statement-${contributorId}-${period.month}.csv"`);
        const records = parseCsvRecords(csvRes.body as string);
        const total = (type: string) => records.filter((r) => r.type === type).reduce((sum, r) => sum + usd(r.amount_usd!), 0n);
        expect(total('opening')).toBe(usd(json.opening_usd));
        expect(total('earning')).toBe(usd(json.earned_usd));
        expect(total('adjustment')).toBe(usd(json.adjustments_usd));
        expect(-(total('payout') + total('payout_reversed'))).toBe(usd(json.paid_usd));
        expect(-total('clawback')).toBe(usd(json.clawed_back_usd));
        expect(total('closing')).toBe(usd(json.closing_usd));
        expect(total('opening') + records.slice(1, -1).reduce((sum, r) => sum + usd(r.amount_usd!), 0n)).toBe(total('closing'));
        expect(records.filter((r) => r.type === 'earning').reduce((sum, r) => sum + Number(r.events), 0)).toBe(json.events);
        expect(records.filter((r) => r.type === 'payout').map((r) => r.tx_hash).sort()).toEqual(json.payouts.map((p: { tx_hash: string }) => p.tx_hash).sort());
        // The same as ?format=csv.
        const viaQuery = await h.t.admin(h.t.http.get(`${statementPath(contributorId, period.month)}?format=csv`)).buffer(true).parse(readText as never).expect(200);
        expect(viaQuery.body).toBe(csvRes.body);

        const to = period.to.toISOString().slice(0, 10);
        const earnings = (await h.t.admin(h.t.http.get(`/v1/contributors/${contributorId}/earnings?from=${period.from.toISOString().slice(0, 10)}&to=${to}&group_by=day,model`)).expect(200)).body;
        expect(earnings.totals.earned_usd).toBe(json.earned_usd);
        // The statement's columns of /earnings' rows (which carry more: token kinds, refunds), days with usage only.
        const columns = ['day', 'model', 'events', 'prompt_tokens', 'completion_tokens', 'official_usd', 'earned_usd'] as const;
        const usageRows = (earnings.rows as Array<Record<string, unknown>>).filter((r) => (r.events as number) > 0);
        expect(json.earnings).toEqual(usageRows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]]))));
      }
    }
  });

  it('prints a one-page PDF with the same figures and every payout transaction hash', async () => {
    for (const contributorId of ACTIVE) {
      for (const period of ACTIVE_MONTHS) {
        const json = (await h.t.admin(h.t.http.get(statementPath(contributorId, period.month))).expect(200)).body;
        const res = await h.t.admin(h.t.http.get(statementPath(contributorId, period.month))).set('Accept', 'application/pdf').buffer(true).parse(readBytes as never).expect(200);
        expect(res.headers['content-type']).toBe('application/pdf');
        const bytes = res.body as Buffer;
        expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        const text = await pdfText(bytes);
        expect(text.pages).toBe(1);
        expect(text.lines).toEqual(
          expect.arrayContaining([
            `Opening balance ${usdText(usd(json.opening_usd))}`,
            `Earned (${json.events} events) ${usdText(usd(json.earned_usd))}`,
            `Clawed back ${usdText(usd(json.clawed_back_usd))}`,
            `Adjustments ${usdText(usd(json.adjustments_usd))}`,
            `Paid ${usdText(usd(json.paid_usd))}`,
            `Closing balance ${usdText(usd(json.closing_usd))}`,
          ]),
        );
        const all = text.lines.join('\n');
        expect(all).toContain(`Period: ${period.month}`);
        for (const payout of json.payouts as Array<{ tx_hash: string }>) expect(all).toContain(payout.tx_hash);
        // Deterministic: the same statement, the same bytes.
        const again = await h.t.admin(h.t.http.get(`${statementPath(contributorId, period.month)}?format=pdf`)).buffer(true).parse(readBytes as never).expect(200);
        expect(Buffer.compare(again.body as Buffer, bytes)).toBe(0);
      }
    }
  });

  it('lets a contributor key read only its own statements; refuses bad and future months with a 400 naming month', async () => {
    const as = (k: string, path: string) => h.t.http.get(path).set('Authorization', `Bearer ${k}`);
    const own = await as(ownKey, statementPath('c_a', '2026-09')).expect(200);
    const byAdmin = await h.t.admin(h.t.http.get(statementPath('c_a', '2026-09'))).expect(200);
    expect(own.body).toEqual(byAdmin.body);
    expect((await as(ownKey, statementPath('c_b', '2026-09')).expect(403)).body.error.code).toBe('forbidden');
    expect((await as(ownKey, statementPath('c_nobody', '2026-09')).expect(403)).body.error.code).toBe('forbidden');
    expect((await as(gatewayKey, statementPath('c_a', '2026-09')).expect(403)).body.error.code).toBe('forbidden');
    await h.t.http.get(statementPath('c_a', '2026-09')).expect(401);
    expect((await h.t.admin(h.t.http.get(statementPath('c_nobody', '2026-09'))).expect(404)).body.error.code).toBe('not_found');

    const now = new Date();
    const nextMonth = monthStarting(now.getUTCFullYear(), now.getUTCMonth() + 1).month;
    for (const [month, message] of [
      ['2026-13', /between 01 and 12/],
      ['2026-9', /YYYY-MM/],
      ['2026-09-01', /YYYY-MM/],
      ['sept', /YYYY-MM/],
      ['1999-12', /year/],
      [nextMonth, /not begun/],
    ] as const) {
      const res = await h.t.admin(h.t.http.get(statementPath('c_a', month))).set('Accept', 'application/pdf').expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toMatch(message);
      expect(res.body.error.details).toEqual([{ field: 'month', message: expect.stringMatching(message) }]);
    }
    expect((await h.t.admin(h.t.http.get(`${statementPath('c_a', '2026-09')}?format=xlsx`)).expect(400)).body.error.code).toBe('validation_failed');
    const current = monthStarting(now.getUTCFullYear(), now.getUTCMonth()).month;
    expect((await h.t.admin(h.t.http.get(statementPath('c_a', current))).expect(200)).body.month_ended).toBe(false);
    expect((await h.t.admin(h.t.http.get(statementPath('c_a', '2026-09'))).expect(200)).body.month_ended).toBe(true);
    await expectLedgerClean(h.t);
  });

  it('is described in the OpenAPI document with its three media types', async () => {
    const docs = await h.t.http.get('/docs-json').expect(200);
    const operation = docs.body.paths['/v1/contributors/{id}/statements/{month}']?.get;
    expect(operation).toBeDefined();
    expect(Object.keys(operation.responses['200'].content).sort()).toEqual(['application/json', 'application/pdf', 'text/csv']);
    expect(JSON.stringify(docs.body.components.schemas)).toContain('clawed_back_usd');
  });
});
