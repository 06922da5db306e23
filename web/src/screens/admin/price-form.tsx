import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { NewPrice } from '../../api/wire';
import { ErrorMessage } from '../../components/states';
import { FEE_DECIMALS, PER_MTOK_DECIMALS, tiersBody, type TierDraft } from '../../lib/console-forms';
import { normalizeDecimalInput } from '../../money/decimal';
import { PendingButton } from '../../components/pending-button';

export interface PriceDraft {
  model: string;
  /** Empty = "standard" (the API's default). */
  variant?: string;
  input: string;
  output: string;
  cached: string;
  effectiveFrom: string;
  tiers?: TierDraft[];
  /** Fees in USD, at most 12 decimals. */
  webSearch?: string;
  webSearchBilling?: '' | 'per_call' | 'per_request';
  requestFee?: string;
}

const VARIANT = /^[a-z0-9._-]{1,64}$/;
const EMPTY_TIER: TierDraft = { above: '', inclusive: false, input: '', output: '', cached: '' };

/** The request body, or the first problem; prices stay decimal strings end to end. */
export function priceBody(draft: PriceDraft): { body: NewPrice } | { problem: string } {
  const model = draft.model.trim();
  if (!model) return { problem: 'model is required' };
  const input = normalizeDecimalInput(draft.input, PER_MTOK_DECIMALS);
  const output = normalizeDecimalInput(draft.output, PER_MTOK_DECIMALS);
  if (input === null) return { problem: `input price must be a decimal with at most ${PER_MTOK_DECIMALS} decimals` };
  if (output === null) return { problem: `output price must be a decimal with at most ${PER_MTOK_DECIMALS} decimals` };
  const body: NewPrice = { model, input_usd_per_mtok: input, output_usd_per_mtok: output };
  if (draft.cached.trim() !== '') {
    const cached = normalizeDecimalInput(draft.cached, PER_MTOK_DECIMALS);
    if (cached === null) return { problem: `cached input price must be a decimal with at most ${PER_MTOK_DECIMALS} decimals` };
    body.cached_input_usd_per_mtok = cached;
  }
  if (draft.effectiveFrom.trim() !== '') body.effective_from = draft.effectiveFrom.trim();
  const variant = (draft.variant ?? '').trim();
  if (variant !== '') {
    if (!VARIANT.test(variant)) return { problem: 'variant must be 1-64 lowercase letters, digits, ".", "_" or "-"' };
    body.variant = variant;
  }
  const tiers = tiersBody(draft.tiers ?? []);
  if ('problem' in tiers) return tiers;
  if (tiers.tiers.length > 0) body.tiers = tiers.tiers;
  if ((draft.webSearch ?? '').trim() !== '') {
    const fee = normalizeDecimalInput(draft.webSearch!, FEE_DECIMALS);
    if (fee === null) return { problem: `web search fee must be a decimal with at most ${FEE_DECIMALS} decimals` };
    body.web_search_usd_per_call = fee;
    if (draft.webSearchBilling) body.web_search_billing = draft.webSearchBilling;
  } else if (draft.webSearchBilling) {
    return { problem: 'web search billing needs a web search fee' };
  }
  if ((draft.requestFee ?? '').trim() !== '') {
    const fee = normalizeDecimalInput(draft.requestFee!, FEE_DECIMALS);
    if (fee === null) return { problem: `request fee must be a decimal with at most ${FEE_DECIMALS} decimals` };
    body.request_usd = fee;
  }
  return { body };
}

/** Adds a price version (USD per million tokens). The API's own checks answer in its words. */
export function PriceForm({ model = '', effectiveFrom = '', onSaved }: { model?: string; effectiveFrom?: string; onSaved?: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PriceDraft>({ model, variant: '', input: '', output: '', cached: '', effectiveFrom, tiers: [], webSearch: '', webSearchBilling: '', requestFee: '' });
  const tiers = draft.tiers ?? [];
  const setTier = (index: number, change: Partial<TierDraft>) => setDraft({ ...draft, tiers: tiers.map((t, i) => (i === index ? { ...t, ...change } : t)) });
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: api.createPrice,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.prices });
      await queryClient.invalidateQueries({ queryKey: ['price-history'] });
      onSaved?.();
    },
  });
  const field = (name: 'model' | 'variant' | 'input' | 'output' | 'cached' | 'effectiveFrom' | 'webSearch' | 'requestFee') => ({ value: draft[name] ?? '', onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = priceBody(draft);
    if ('problem' in result) {
      setProblem(result.problem);
      return;
    }
    setProblem(null);
    save.mutate(result.body);
  };
  const idPrefix = `price-${model || 'new'}`.replace(/[^A-Za-z0-9_-]/g, '-');
  return (
    <form onSubmit={submit} aria-label={model ? `Add a price for ${model}` : 'Add a price'} className="form-grid">
      <label htmlFor={`${idPrefix}-model`}>Model</label>
      <input id={`${idPrefix}-model`} {...field('model')} required spellCheck={false} />
      <label htmlFor={`${idPrefix}-input`}>Input USD per 1M tokens</label>
      <input id={`${idPrefix}-input`} inputMode="decimal" {...field('input')} required />
      <label htmlFor={`${idPrefix}-output`}>Output USD per 1M tokens</label>
      <input id={`${idPrefix}-output`} inputMode="decimal" {...field('output')} required />
      <label htmlFor={`${idPrefix}-cached`}>Cached input USD per 1M tokens (optional)</label>
      <input id={`${idPrefix}-cached`} inputMode="decimal" {...field('cached')} />
      <label htmlFor={`${idPrefix}-from`}>In force from (RFC 3339, empty = now)</label>
      <input id={`${idPrefix}-from`} {...field('effectiveFrom')} spellCheck={false} />
      <details className="form-wide">
        <summary>Variant, context tiers and fees (optional)</summary>
        <div className="form-grid">
          <label htmlFor={`${idPrefix}-variant`}>Variant (empty = standard; e.g. flex, batch, priority)</label>
          <input id={`${idPrefix}-variant`} {...field('variant')} spellCheck={false} />
          <label htmlFor={`${idPrefix}-web-search`}>Web search USD per call</label>
          <input id={`${idPrefix}-web-search`} inputMode="decimal" {...field('webSearch')} />
          <label htmlFor={`${idPrefix}-web-search-billing`}>Web search billing</label>
          <select
            id={`${idPrefix}-web-search-billing`}
            value={draft.webSearchBilling ?? ''}
            onChange={(e) => setDraft({ ...draft, webSearchBilling: e.target.value as PriceDraft['webSearchBilling'] })}
          >
            <option value="">(default)</option>
            <option value="per_call">per call</option>
            <option value="per_request">per request</option>
          </select>
          <label htmlFor={`${idPrefix}-request-fee`}>USD per request</label>
          <input id={`${idPrefix}-request-fee`} inputMode="decimal" {...field('requestFee')} />
        </div>
        <fieldset>
          <legend>Context tiers: above this many prompt tokens the whole request is priced at the tier</legend>
          {tiers.map((tier, index) => (
            <div className="tier-row" key={index} role="group" aria-label={`Tier ${index + 1}`}>
              <label>
                Above input tokens <input value={tier.above} onChange={(e) => setTier(index, { above: e.target.value })} inputMode="numeric" />
              </label>
              <label>
                <input type="checkbox" checked={tier.inclusive} onChange={(e) => setTier(index, { inclusive: e.target.checked })} /> inclusive
              </label>
              <label>
                Input / 1M <input value={tier.input} onChange={(e) => setTier(index, { input: e.target.value })} inputMode="decimal" />
              </label>
              <label>
                Output / 1M <input value={tier.output} onChange={(e) => setTier(index, { output: e.target.value })} inputMode="decimal" />
              </label>
              <label>
                Cached input / 1M <input value={tier.cached} onChange={(e) => setTier(index, { cached: e.target.value })} inputMode="decimal" />
              </label>
              <button type="button" onClick={() => setDraft({ ...draft, tiers: tiers.filter((_, i) => i !== index) })} aria-label={`Remove tier ${index + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <button type="button" onClick={() => setDraft({ ...draft, tiers: [...tiers, { ...EMPTY_TIER }] })}>
            Add a tier
          </button>
        </fieldset>
      </details>
      <div className="actions">
        <PendingButton type="submit" className="primary" pending={save.isPending} pendingLabel="Saving…">
          Add price
        </PendingButton>
        {save.isSuccess && (
          <span role="status">
            Price {save.data.id} saved for {save.data.model}
            {save.data.variant && save.data.variant !== 'standard' ? ` (${save.data.variant})` : ''}
            {(save.data.tiers?.length ?? 0) > 0 ? ` with ${save.data.tiers!.length} tiers` : ''}.
          </span>
        )}
      </div>
      {problem && (
        <p role="alert" className="error-message">
          {problem}
        </p>
      )}
      {save.isError && <ErrorMessage error={save.error} title="Price not saved" />}
    </form>
  );
}

/** Imports LiteLLM's model_prices_and_context_window.json as chosen by the admin. */
export function CatalogImport() {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [effectiveFrom, setEffectiveFrom] = useState('');
  const run = useMutation({
    mutationFn: async () => api.importPrices(await file!.text(), effectiveFrom.trim() || undefined),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.prices }),
  });
  return (
    <form
      aria-label="Import the price catalog"
      className="form-grid"
      onSubmit={(e) => {
        e.preventDefault();
        run.mutate();
      }}
    >
      <label htmlFor="catalog-file">LiteLLM price file (model_prices_and_context_window.json)</label>
      <input id="catalog-file" type="file" accept="application/json,.json" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      <label htmlFor="catalog-from">In force from (RFC 3339, empty = now)</label>
      <input id="catalog-from" value={effectiveFrom} onChange={(e) => setEffectiveFrom(e.target.value)} spellCheck={false} />
      <div className="actions">
        <PendingButton type="submit" disabled={!file} pending={run.isPending} pendingLabel="Importing…">
          Import catalog
        </PendingButton>
      </div>
      {run.isSuccess && (
        <div role="status">
          Imported {run.data.imported} versions{run.data.unchanged !== undefined ? `, ${run.data.unchanged} unchanged` : ''}, {run.data.skipped.length} skipped (in
          force from {run.data.effective_from}).
          {run.data.skipped.length > 0 && (
            <details>
              <summary>Skipped models</summary>
              <ul className="small">
                {run.data.skipped.slice(0, 200).map((s) => (
                  <li key={s.model}>
                    <code>{s.model}</code>: {s.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
      {run.isError && <ErrorMessage error={run.error} title="Import failed" />}
    </form>
  );
}
