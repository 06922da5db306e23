import fc from 'fast-check';
import { parseUsdToAtto } from '../../common/money/index.js';
import { parseCsvRecords } from '../../../test/support/csv.js';
import { buildStatement, type BookedKind, type BookedLine, type EarningRow, type Statement, type StatementFacts } from './statement.js';
import { renderStatementCsv } from './statement-csv.js';
import { monthStarting, type StatementMonth } from './statement-month.js';
import { statementBody } from './statements.presenter.js';

const MICRO = 10n ** 12n;
const NOW = new Date('2027-06-01T00:00:00Z');
const MONTHS: StatementMonth[] = [0, 1, 2, 3].map((i) => monthStarting(2026, 8 + i)); // 2026-09 .. 2026-12
const SPAN_START_MS = MONTHS[0]!.from.getTime();
const SPAN_MS = MONTHS[3]!.to.getTime() - SPAN_START_MS;
const MODELS = ['openai/gpt-4o', 'anthropic/claude', '=cmd,"quoted"'];

interface Activity {
  earnings: Array<EarningRow & { at: number }>;
  booked: BookedLine[];
}

const atto = fc.bigInt({ min: 0n, max: 10n ** 21n });
const earningArb = fc.record({ offset: fc.integer({ min: 0, max: SPAN_MS - 1 }), model: fc.constantFrom(...MODELS), earnedAtto: atto, events: fc.integer({ min: 1, max: 50 }) });
const bookedArb = fc.record({
  offset: fc.integer({ min: 0, max: SPAN_MS - 1 }),
  kind: fc.constantFrom<BookedKind>('payout', 'payout_reversed', 'adjustment', 'clawback'),
  amount: fc.bigInt({ min: 1n, max: 10n ** 21n }),
  negative: fc.boolean(),
});

type Arbitrary<A> = A extends fc.Arbitrary<infer T> ? T : never;

function activityOf(earnings: Arbitrary<typeof earningArb>[], booked: Arbitrary<typeof bookedArb>[]): Activity {
  // One rollup row per (day, model), as the table holds them.
  const rows = new Map<string, EarningRow & { at: number }>();
  for (const e of earnings) {
    const day = new Date(SPAN_START_MS + e.offset).toISOString().slice(0, 10);
    const row = rows.get(`${day}|${e.model}`) ?? { day, model: e.model, events: 0n, promptTokens: 0n, completionTokens: 0n, officialAtto: 0n, earnedAtto: 0n, at: Date.parse(day) };
    row.events += BigInt(e.events);
    row.promptTokens += BigInt(e.events * 10);
    row.completionTokens += BigInt(e.events * 3);
    row.officialAtto += (e.earnedAtto * 10n) / 11n;
    row.earnedAtto += e.earnedAtto;
    rows.set(`${day}|${e.model}`, row);
  }
  const lines = booked.map((b, i): BookedLine => {
    const micro = b.amount / MICRO + 1n;
    const base = { entryId: BigInt(i + 1), ref: `ref-${i}`, bookedAt: new Date(SPAN_START_MS + b.offset), reference: null, memo: null };
    const payout = { payoutId: `p-${i}`, settlementId: 's-1', amountMicroUsdc: micro, txHash: `0x${i.toString(16).padStart(64, '0')}`, confirmedAt: base.bookedAt };
    switch (b.kind) {
      case 'payout':
        return { ...base, kind: 'payout', journalKind: 'settlement_paid', owedDeltaAtto: -micro * MICRO, payout };
      case 'payout_reversed':
        return { ...base, kind: 'payout_reversed', journalKind: 'settlement_reorged', owedDeltaAtto: micro * MICRO, payout };
      case 'adjustment':
        return { ...base, kind: 'adjustment', journalKind: 'adjustment', owedDeltaAtto: b.negative ? -b.amount : b.amount, reference: `adj-${i}`, memo: 'fix, "quoted"', payout: null };
      case 'clawback':
        return { ...base, kind: 'clawback', journalKind: 'refund', owedDeltaAtto: -(b.amount - 1n), payout: null };
      default:
        throw new Error(`unknown kind ${String(b.kind)}`);
    }
  });
  return { earnings: [...rows.values()], booked: lines };
}

/** What the repository reads for one month, computed from the whole activity in memory. */
function factsFor(activity: Activity, period: StatementMonth): StatementFacts {
  const from = period.from.getTime();
  const to = period.to.getTime();
  const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);
  return {
    contributorId: 'c_prop',
    period,
    earnedBeforeAtto: sum(activity.earnings.filter((e) => e.at < from).map((e) => e.earnedAtto)),
    bookedBeforeAtto: sum(activity.booked.filter((b) => b.bookedAt.getTime() < from).map((b) => b.owedDeltaAtto)),
    earnings: activity.earnings.filter((e) => e.at >= from && e.at < to).map(({ at: _at, ...row }) => row),
    booked: activity.booked.filter((b) => b.bookedAt.getTime() >= from && b.bookedAt.getTime() < to),
  };
}

const usd = (text: string) => parseUsdToAtto(text, { allowNegative: true });

function expectCsvTiesOut(statement: Statement): void {
  const json = statementBody(statement);
  const records = parseCsvRecords(renderStatementCsv(statement));
  const total = (type: string) => records.filter((r) => r.type === type).reduce((s, r) => s + usd(r.amount_usd!), 0n);
  expect(records[0]!.type).toBe('opening');
  expect(records.at(-1)!.type).toBe('closing');
  expect(total('opening')).toBe(usd(json.opening_usd));
  expect(total('earning')).toBe(usd(json.earned_usd));
  expect(-total('clawback')).toBe(usd(json.clawed_back_usd));
  expect(total('adjustment')).toBe(usd(json.adjustments_usd));
  expect(-(total('payout') + total('payout_reversed'))).toBe(usd(json.paid_usd));
  expect(total('closing')).toBe(usd(json.closing_usd));
  const movements = records.slice(1, -1).reduce((s, r) => s + usd(r.amount_usd!), 0n);
  expect(usd(json.opening_usd) + movements).toBe(usd(json.closing_usd));
  expect(records.filter((r) => r.type === 'earning').reduce((s, r) => s + Number(r.events), 0)).toBe(json.events);
  const paidUsdc = json.payouts.reduce((s, p) => s + parseUsdToAtto(p.amount_usdc, { allowNegative: true }), 0n);
  expect(paidUsdc).toBe(usd(json.paid_usd));
}

describe('monthly statement', () => {
  it('chains months (opening = last closing), ties closing to everything before month end, and the CSV to the JSON', () => {
    fc.assert(
      fc.property(fc.array(earningArb, { maxLength: 60 }), fc.array(bookedArb, { maxLength: 30 }), (earnings, booked) => {
        const activity = activityOf(earnings, booked);
        let previous: Statement | null = null;
        for (const period of MONTHS) {
          const statement = buildStatement({ facts: factsFor(activity, period), now: NOW });
          const s = statement;
          expect(s.closingAtto).toBe(s.openingAtto + s.earnedAtto - s.clawedBackAtto + s.adjustmentsAtto - s.paidAtto);
          if (previous) expect(s.openingAtto).toBe(previous.closingAtto);
          else expect(s.openingAtto).toBe(0n);
          const end = period.to.getTime();
          const everythingBefore =
            activity.earnings.filter((e) => e.at < end).reduce((a, e) => a + e.earnedAtto, 0n) +
            activity.booked.filter((b) => b.bookedAt.getTime() < end).reduce((a, b) => a + b.owedDeltaAtto, 0n);
          expect(s.closingAtto).toBe(everythingBefore);
          expectCsvTiesOut(statement);
          previous = statement;
        }
      }),
      { numRuns: 150 },
    );
  });

  it('refuses facts that break the ledger rules (a payout that raises the balance, a line outside the month)', () => {
    const period = MONTHS[0]!;
    const base: StatementFacts = { contributorId: 'c', period, earnedBeforeAtto: 0n, bookedBeforeAtto: 0n, earnings: [], booked: [] };
    const payout: BookedLine = {
      kind: 'payout',
      entryId: 1n,
      journalKind: 'settlement_paid',
      ref: 'l1',
      bookedAt: new Date(period.from.getTime() + 1000),
      owedDeltaAtto: MICRO,
      reference: null,
      memo: null,
      payout: { payoutId: 'l1', settlementId: 's', amountMicroUsdc: 1n, txHash: null, confirmedAt: null },
    };
    expect(() => buildStatement({ facts: { ...base, booked: [payout] }, now: NOW })).toThrow(/lowers what is owed/);
    expect(() => buildStatement({ facts: { ...base, booked: [{ ...payout, owedDeltaAtto: -2n * MICRO }] }, now: NOW })).toThrow(/USDC amount/);
    expect(() => buildStatement({ facts: { ...base, booked: [{ ...payout, owedDeltaAtto: -MICRO, bookedAt: period.to }] }, now: NOW })).toThrow(/outside/);
    const earning = { day: '2026-10-01', model: 'm', events: 1n, promptTokens: 1n, completionTokens: 1n, officialAtto: 1n, earnedAtto: 1n };
    expect(() => buildStatement({ facts: { ...base, earnings: [earning] }, now: NOW })).toThrow(/outside/);
  });

  it('writes model names a spreadsheet would run as formulas with a leading apostrophe, and quotes commas', () => {
    const period = MONTHS[0]!;
    const earning = { day: '2026-09-03', model: '=HYPERLINK("x"),y', events: 1n, promptTokens: 1n, completionTokens: 1n, officialAtto: 10n, earnedAtto: 11n };
    const csv = renderStatementCsv(buildStatement({ facts: { contributorId: 'c', period, earnedBeforeAtto: 0n, bookedBeforeAtto: 0n, earnings: [earning], booked: [] }, now: NOW }));
    expect(csv.split('\r\n')[2]).toBe(`2026-09-03,earning,"'=HYPERLINK(""x""),y",,1,1,1,0.00000000000000001,0.000000000000000011,,,`);
    expect(parseCsvRecords(csv)[1]!.model).toBe(`'=HYPERLINK("x"),y`);
  });
});
