import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { NewPrice } from '../../api/types';
import { ErrorMessage } from '../../components/states';
import { normalizeDecimalInput } from '../../money/decimal';

/** api.md: per-Mtok prices have at most 6 decimals. */
const PER_MTOK_DECIMALS = 6;

export interface PriceDraft {
  model: string;
  input: string;
  output: string;
  cached: string;
  effectiveFrom: string;
}

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
  return { body };
}

/** Adds a price version (USD per million tokens). The API's own checks answer in its words. */
export function PriceForm({ model = '', effectiveFrom = '', onSaved }: { model?: string; effectiveFrom?: string; onSaved?: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PriceDraft>({ model, input: '', output: '', cached: '', effectiveFrom });
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: api.createPrice,
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.prices });
      await queryClient.invalidateQueries({ queryKey: ['price-history'] });
      onSaved?.();
    },
  });
  const field = (name: keyof PriceDraft) => ({ value: draft[name], onChange: (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value }) });
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
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Add price'}
        </button>
        {save.isSuccess && <span role="status">Price {save.data.id} saved for {save.data.model}.</span>}
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
        <button type="submit" disabled={!file || run.isPending}>
          {run.isPending ? 'Importing…' : 'Import catalog'}
        </button>
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
