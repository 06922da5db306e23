import { pdfText } from '../../../test/support/pdf-text.js';
import { buildStatement, type StatementFacts } from './statement.js';
import { parseStatementMonth } from './statement-month.js';
import { earningsByModel, PDF_BOOKED_LINES_MAX, PDF_MODELS_MAX, renderStatementPdf, usdText } from './statement-pdf.js';

const NOW = new Date('2026-12-01T11:30:00Z');
const USD = 10n ** 18n;

function facts(overrides: Partial<StatementFacts> = {}): StatementFacts {
  const period = parseStatementMonth('2026-11', NOW);
  return {
    contributorId: 'c_pdf',
    period,
    earnedBeforeAtto: 5n * USD + 7n,
    bookedBeforeAtto: -2n * USD,
    earnings: [
      { day: '2026-11-02', model: 'openai/gpt-4o', events: 3n, promptTokens: 300n, completionTokens: 90n, officialAtto: 10n * USD, earnedAtto: 11n * USD + 123n },
      { day: '2026-11-03', model: 'anthropic/claude', events: 1n, promptTokens: 10n, completionTokens: 5n, officialAtto: USD, earnedAtto: USD + USD / 10n },
    ],
    booked: [
      {
        kind: 'payout',
        entryId: 10n,
        journalKind: 'settlement_paid',
        ref: '8f0b9c1e-0000-4000-8000-000000000001',
        bookedAt: new Date('2026-11-10T12:00:00Z'),
        owedDeltaAtto: -4_000_000n * 10n ** 12n,
        reference: null,
        memo: null,
        payout: {
          payoutId: '8f0b9c1e-0000-4000-8000-000000000001',
          settlementId: '8f0b9c1e-0000-4000-8000-0000000000aa',
          amountMicroUsdc: 4_000_000n,
          txHash: `0x${'ab'.repeat(32)}`,
          confirmedAt: new Date('2026-11-10T12:00:00Z'),
        },
      },
      {
        kind: 'adjustment',
        entryId: 11n,
        journalKind: 'adjustment',
        ref: 'contributor_adjustment:bonus-1',
        bookedAt: new Date('2026-11-12T08:00:00Z'),
        owedDeltaAtto: USD / 2n,
        reference: 'bonus-1',
        memo: 'launch bonus',
        payout: null,
      },
    ],
    ...overrides,
  };
}

describe('statement PDF', () => {
  it('prints the period, every figure and each payout with its transaction hash, on one page, readable back', async () => {
    const statement = buildStatement({ facts: facts(), now: NOW });
    const text = await pdfText(await renderStatementPdf(statement));
    expect(text.pages).toBe(1);
    const all = text.lines.join('\n');
    expect(all).toContain('Contributor: c_pdf');
    expect(all).toContain('Period: 2026-11 (2026-11-01 to 2026-11-30, UTC)');
    for (const [label, atto] of [
      ['Opening balance', statement.openingAtto],
      ['Earned (4 events)', statement.earnedAtto],
      ['Clawed back', statement.clawedBackAtto],
      ['Adjustments', statement.adjustmentsAtto],
      ['Paid', statement.paidAtto],
      ['Closing balance', statement.closingAtto],
    ] as const) {
      expect(text.lines).toContain(`${label} ${usdText(atto)}`);
    }
    expect(all).toContain(`0x${'ab'.repeat(32)}`);
    expect(all).toContain('bonus-1: launch bonus');
  });

  it('gives the same bytes for the same statement (no clock, no random id)', async () => {
    const statement = buildStatement({ facts: facts(), now: NOW });
    const first = await renderStatementPdf(statement);
    const second = await renderStatementPdf(buildStatement({ facts: facts(), now: new Date('2027-03-01T00:00:00Z') }));
    expect(Buffer.compare(first, second)).toBe(0);
  });

  it('stays on one page with many models and lines, counting what it leaves to the CSV', async () => {
    const earnings = Array.from({ length: 40 }, (_, i) => ({
      day: '2026-11-05',
      model: `vendor/model-${String(i).padStart(2, '0')}-${'x'.repeat(60)}`,
      events: 1n,
      promptTokens: 1n,
      completionTokens: 1n,
      officialAtto: USD,
      earnedAtto: BigInt(i + 1) * USD,
    }));
    const booked = Array.from({ length: 60 }, (_, i) => ({
      kind: 'adjustment' as const,
      entryId: BigInt(i + 1),
      journalKind: 'adjustment',
      ref: `contributor_adjustment:a-${i}`,
      bookedAt: new Date(Date.UTC(2026, 10, 1 + (i % 28))),
      owedDeltaAtto: i % 2 === 0 ? USD : -USD,
      reference: `a-${i}`,
      memo: 'é'.repeat(100),
      payout: null,
    }));
    const statement = buildStatement({ facts: facts({ earnings, booked }), now: NOW });
    const text = await pdfText(await renderStatementPdf(statement));
    expect(text.pages).toBe(1);
    expect(text.lines.join('\n')).toContain(`and ${60 - PDF_BOOKED_LINES_MAX} more lines: see the CSV statement.`);
    const models = earningsByModel(statement.earnings);
    expect(models).toHaveLength(PDF_MODELS_MAX);
    expect(models.reduce((sum, m) => sum + m.earnedAtto, 0n)).toBe(statement.earnedAtto);
    expect(text.lines.join('\n')).toContain(`${40 - PDF_MODELS_MAX + 1} other models`);
  });
});
