import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStatementMonth, microToUsdc, monthOf, newRefundId, recentMonths, reconciliationOf, refundBody, refundFilters, statementFilename, tiersBody, webhookBody } from './console-forms';

describe('recentMonths', () => {
  it('counts back across the year boundary, newest first', () => {
    expect(recentMonths(new Date('2026-02-15T00:00:00Z'), 4)).toEqual(['2026-02', '2026-01', '2025-12', '2025-11']);
    expect(recentMonths(new Date('2026-12-31T23:59:59.999Z'), 1)).toEqual(['2026-12']);
  });

  it('every month is a valid, distinct statement month, each one before the last', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('2002-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true }), fc.integer({ min: 1, max: 24 }), (now, count) => {
        const months = recentMonths(now, count);
        expect(months).toHaveLength(count);
        expect(months[0]).toBe(monthOf(now));
        months.forEach((m) => expect(isStatementMonth(m)).toBe(true));
        for (let i = 1; i < months.length; i++) expect(months[i]! < months[i - 1]!).toBe(true);
      }),
    );
  });
});

describe('isStatementMonth', () => {
  it('accepts YYYY-MM with month 01..12 and year from 2000', () => {
    expect(isStatementMonth('2026-11')).toBe(true);
    for (const bad of ['2026-13', '2026-00', '1999-12', '2026-1', '26-11', '2026-11-01', '']) expect(isStatementMonth(bad)).toBe(false);
  });
});

describe('statementFilename', () => {
  it('names the contributor and month, without path characters', () => {
    expect(statementFilename('c/1 x', '2026-11', 'pdf')).toBe('statement-c_1_x-2026-11.pdf');
  });
});

describe('refundBody', () => {
  const draft = { refundId: newRefundId(() => 'abc'), full: false, amount: '0.50', reason: ' duplicate request ' };

  it('sends the typed amount as a string, trimmed reason, the generated id', () => {
    expect(draft.refundId).toBe('console-abc');
    expect(refundBody(draft)).toEqual({ body: { refund_id: 'console-abc', amount_usd: '0.50', reason: 'duplicate request' } });
  });

  it('a full refund omits the amount', () => {
    expect(refundBody({ ...draft, full: true, amount: 'garbage' })).toEqual({ body: { refund_id: 'console-abc', reason: 'duplicate request' } });
  });

  it('names the problem', () => {
    expect(refundBody({ ...draft, reason: '  ' })).toEqual({ problem: 'a reason is required' });
    expect(refundBody({ ...draft, amount: '-1' })).toHaveProperty('problem');
    expect(refundBody({ ...draft, amount: '0.000' })).toEqual({ problem: 'the amount must be greater than zero' });
    expect(refundBody({ ...draft, amount: '1e3' })).toHaveProperty('problem');
  });

  it('any positive decimal with up to 18 decimals passes through unchanged (no JS number)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }), (units, scale) => {
        const digits = units.toString().padStart(scale + 1, '0');
        const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
        expect(refundBody({ ...draft, amount: text })).toEqual({ body: { refund_id: 'console-abc', amount_usd: text, reason: 'duplicate request' } });
      }),
    );
  });

  it('generated ids differ', () => {
    expect(newRefundId()).not.toBe(newRefundId());
  });
});

describe('refundFilters', () => {
  it('drops empty filters', () => {
    expect(refundFilters({ event_id: ' e1 ', contributor_id: '', user_id: '  ' })).toEqual({ event_id: 'e1' });
  });
});

describe('webhookBody', () => {
  it('needs a URL and an event type; dedupes types', () => {
    expect(webhookBody({ url: ' ', events: ['payout.paid'], description: '' })).toEqual({ problem: 'a URL is required' });
    expect(webhookBody({ url: 'https://x.test/h', events: [], description: '' })).toEqual({ problem: 'choose at least one event type' });
    expect(webhookBody({ url: 'https://x.test/h', events: ['payout.paid', 'payout.paid'], description: ' ops ' })).toEqual({
      body: { url: 'https://x.test/h', events: ['payout.paid'], description: 'ops' },
    });
  });
});

describe('tiersBody', () => {
  const row = { above: '', inclusive: false, input: '', output: '', cached: '' };

  it('drops empty rows, sorts ascending, keeps prices as strings', () => {
    expect(
      tiersBody([
        { ...row, above: '1,000,000', input: '10', output: '40' },
        row,
        { ...row, above: '200000', inclusive: true, input: '6.25' },
      ]),
    ).toEqual({
      tiers: [
        { above_input_tokens: 200000, inclusive: true, input_usd_per_mtok: '6.25' },
        { above_input_tokens: 1000000, input_usd_per_mtok: '10', output_usd_per_mtok: '40' },
      ],
    });
  });

  it('names the problem', () => {
    expect(tiersBody([{ ...row, above: 'x', input: '1' }])).toEqual({ problem: 'tier 1: "above input tokens" must be a whole number' });
    expect(tiersBody([{ ...row, above: '5' }])).toEqual({ problem: 'tier 1: give at least one price' });
    expect(tiersBody([{ ...row, above: '5', input: '1' }, { ...row, above: '5', output: '2' }])).toEqual({ problem: 'tier 2: two tiers with the same above input tokens' });
    expect(tiersBody([{ ...row, above: '5', cached: '0.0000001' }])).toEqual({ problem: 'tier 1: cached input price must be a decimal with at most 6 decimals' });
  });
});

describe('microToUsdc', () => {
  it('moves the point six places as text', () => {
    expect(['1500000', '1', '0', '-2000000', '-0'].map(microToUsdc)).toEqual(['1.5', '0.000001', '0', '-2', '0']);
  });

  it('is exact for any integer (property, bigint oracle)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (micro) => {
        const text = microToUsdc(micro.toString());
        const [whole, fraction = ''] = text.replace('-', '').split('.');
        const back = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0') || '0');
        expect(text.startsWith('-') ? -back : back).toBe(micro);
        expect(fraction.endsWith('0')).toBe(false);
      }),
    );
  });
});

describe('reconciliationOf', () => {
  it('null for none; reads a failed one with its differences in USDC', () => {
    expect(reconciliationOf(null)).toBeNull();
    expect(reconciliationOf({ status: 'x' })).toBeNull();
    const r = reconciliationOf({
      ok: false,
      checked_at: '2026-12-01T10:00:00.000Z',
      paid_lines: 3,
      chain_payouts: 4,
      missing_on_chain: 0,
      unexpected_on_chain: 1,
      funding_mismatches: 0,
      differences: [{ kind: 'unexpected_on_chain', tx_hash: '0xab', recipient: '0xcd', amount_micro_usdc: '2500000' }],
    });
    expect(r).toMatchObject({ ok: false, paid_lines: 3, unexpected_on_chain: 1, differences: [{ kind: 'unexpected_on_chain', recipient: '0xcd', amount_usdc: '2.5' }] });
  });
});
