import { describe, expect, it } from 'vitest';
import type { LedgerCheck, Price } from '../../api/wire';
import { extraChecks } from './ledger';
import { priceBody } from './price-form';
import { feeSummary } from './prices';
import { coolingDownUntil } from '../shared/payout-address-trust';

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
    const report: LedgerCheck = {
      ok: false,
      mode: 'full',
      checkpoint: null,
      journal_entries: 3,
      postings_sum: '0',
      postings_sum_atto: '0',
      unbalanced_entries: 0,
      mismatched_accounts: [],
      held_mismatches: [],
      rollups: { ok: true, mismatches: [] },
      settlement: { ok: false, missing: 1 },
      timings_ms: { ledger: 1.5 },
    };
    expect(extraChecks(report)).toEqual([
      { name: 'rollups', ok: true, detail: { ok: true, mismatches: [] } },
      { name: 'settlement', ok: false, detail: { ok: false, missing: 1 } },
    ]);
  });
});

describe('priceBody with variant, tiers and fees (api.md admin POST)', () => {
  const draft = { model: 'm', input: '3', output: '15', cached: '', effectiveFrom: '' };
  const tier = { above: '200000', inclusive: false, input: '6', output: '22.5', cached: '' };

  it('adds the variant, tiers and fees as strings', () => {
    expect(priceBody({ ...draft, variant: 'flex', tiers: [tier], webSearch: '0.01', webSearchBilling: 'per_request', requestFee: '0.000000000001' })).toEqual({
      body: {
        model: 'm',
        variant: 'flex',
        input_usd_per_mtok: '3',
        output_usd_per_mtok: '15',
        tiers: [{ above_input_tokens: 200000, input_usd_per_mtok: '6', output_usd_per_mtok: '22.5' }],
        web_search_usd_per_call: '0.01',
        web_search_billing: 'per_request',
        request_usd: '0.000000000001',
      },
    });
  });

  it('names the problem', () => {
    expect(priceBody({ ...draft, variant: 'Flex' })).toHaveProperty('problem');
    expect(priceBody({ ...draft, webSearchBilling: 'per_call' })).toEqual({ problem: 'web search billing needs a web search fee' });
    expect(priceBody({ ...draft, requestFee: '0.0000000000001' })).toEqual({ problem: 'request fee must be a decimal with at most 12 decimals' });
    expect(priceBody({ ...draft, tiers: [{ ...tier, above: '' }] })).toEqual({ problem: 'tier 1: "above input tokens" must be a whole number' });
  });
});

describe('feeSummary', () => {
  it('lists the fees as sent', () => {
    const base: Price = {
      id: '1', model: 'm', variant: 'standard', input_usd_per_mtok: '1', output_usd_per_mtok: '1', cached_input_usd_per_mtok: null, effective_from: '', source: 'admin', created_at: '',
      cache_write_1h_usd_per_mtok: null, cache_write_5m_usd_per_mtok: null, cached_input_audio_usd_per_mtok: null, input_audio_usd_per_mtok: null, input_image_usd_per_mtok: null,
      output_audio_usd_per_mtok: null, output_image_usd_per_mtok: null, reasoning_usd_per_mtok: null, tiers: [], web_search_usd_per_call: null, web_search_billing: null, request_usd: null,
    };
    expect(feeSummary({ ...base, web_search_usd_per_call: '0.01', web_search_billing: 'per_call', request_usd: '0.002' })).toBe('web search 0.01 per call; request 0.002');
    expect(feeSummary(base)).toBe('');
  });
});

describe('coolingDownUntil', () => {
  const until = '2026-12-02T10:00:00.000Z';
  it('shows the end of the cool-down only while it lasts', () => {
    expect(coolingDownUntil({ payout_address_payable_from: until }, Date.parse(until) - 1)).toBe(until);
    expect(coolingDownUntil({ payout_address_payable_from: until }, Date.parse(until))).toBeNull();
    expect(coolingDownUntil({ payout_address_payable_from: null }, 0)).toBeNull();
  });
});
