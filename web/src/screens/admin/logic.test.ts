import { describe, expect, it } from 'vitest';
import type { LedgerCheck } from '../../api/types';
import { extraChecks } from './ledger';
import { priceBody } from './price-form';

describe('priceBody', () => {
  const draft = { model: ' demo/m ', input: '2.50', output: '10', cached: '', effectiveFrom: '' };

  it('sends prices as the decimal strings typed (never numbers), trimmed', () => {
    expect(priceBody(draft)).toEqual({ body: { model: 'demo/m', input_usd_per_mtok: '2.50', output_usd_per_mtok: '10' } });
    expect(priceBody({ ...draft, cached: '1,25', effectiveFrom: '2026-11-01T00:00:00Z' })).toEqual({
      body: { model: 'demo/m', input_usd_per_mtok: '2.50', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '125', effective_from: '2026-11-01T00:00:00Z' },
    });
  });

  it('names the first problem', () => {
    expect(priceBody({ ...draft, model: ' ' })).toEqual({ problem: 'model is required' });
    expect(priceBody({ ...draft, input: '0.0000001' })).toEqual({ problem: 'input price must be a decimal with at most 6 decimals' });
    expect(priceBody({ ...draft, output: 'ten' })).toEqual({ problem: 'output price must be a decimal with at most 6 decimals' });
  });
});

describe('extraChecks', () => {
  it('lists the checks modules add to the ledger report, not the core fields', () => {
    const report = {
      ok: false,
      journal_entries: 3,
      postings_sum: '0',
      unbalanced_entries: 0,
      mismatched_accounts: [],
      held_mismatches: [],
      rollups: { ok: true, mismatches: [] },
      chain: { ok: false, missing: 1 },
    } as LedgerCheck;
    expect(extraChecks(report)).toEqual([
      { name: 'rollups', ok: true, detail: { ok: true, mismatches: [] } },
      { name: 'chain', ok: false, detail: { ok: false, missing: 1 } },
    ]);
  });
});
