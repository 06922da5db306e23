// The whole real LiteLLM catalog (2,985 entries, test/fixtures/prices/litellm-full): the counts of
// docs/pricing.md, and checks derived from the raw file independently of the planner.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isLosslessNumber } from 'lossless-json';
import { countCatalogPlan, PRICE_KINDS, toPriceBody, type VersionDraft } from './catalog-price-body.js';
import { decimalTextToScaled } from './decimal-text.js';
import { parseLitellmDocument } from './litellm-import.js';
import { planLitellmCatalog } from './litellm-plan.js';

const CATALOG_PATH = fileURLToPath(new URL('../../../test/fixtures/prices/litellm-full/model_prices_and_context_window.json', import.meta.url));
const text = readFileSync(CATALOG_PATH, 'utf8');
const document = parseLitellmDocument(text);
/** Floats are fine for telling which fields an entry has; prices are never read from here. */
const raw = JSON.parse(text) as Record<string, Record<string, unknown>>;
const plan = planLitellmCatalog(document);
const standardOf = new Map(plan.versions.filter((v) => v.variant === 'standard').map((v) => [v.model, v]));

function entriesWith(predicate: (entry: Record<string, unknown>) => boolean): string[] {
  return Object.entries(raw)
    .filter(([, entry]) => entry !== null && typeof entry === 'object' && predicate(entry))
    .map(([model]) => model);
}

describe('the whole LiteLLM catalog', () => {
  it('accounts for every entry: imported models plus skipped models', () => {
    const counts = countCatalogPlan(plan);
    expect(Object.keys(raw)).toHaveLength(2985);
    expect(counts.models + counts.skippedModels).toBe(2985);
    expect(new Set([...standardOf.keys(), ...plan.skipped.filter((s) => !s.variant).map((s) => s.model)]).size).toBe(2985);
  });

  it('imports 2,379 models as 2,695 versions with 248 tiers, and skips 606 models by reason', () => {
    expect(countCatalogPlan(plan)).toEqual({
      models: 2379,
      versions: 2695,
      variants: { standard: 2379, batch: 109, priority: 100, flex: 33, us: 26, eu: 18, fast: 6, low: 8, medium: 8, high: 8 },
      tiers: 248,
      versionsWithTiers: 232,
      skippedModels: 606,
      skippedVariants: 0,
      skippedByCode: { not_token_priced: 474, zero_priced: 107, precision: 23, not_a_model: 2 },
      droppedByCode: { not_token_priced: 109, unsupported: 11, zero_priced: 44, invalid: 9 },
    });
  });

  it('makes a variant of every service-tier suffix, multiplier and context-size fee in the file', () => {
    const variantsOf = (variant: string) => plan.versions.filter((v) => v.variant === variant).map((v) => v.model).sort();
    const imported = (models: string[]) => models.filter((m) => standardOf.has(m)).sort();
    const hasSuffix = (suffix: string) => (entry: Record<string, unknown>) => Object.keys(entry).some((f) => f.endsWith(suffix) && /cost|token/.test(f));
    expect(variantsOf('flex')).toEqual(imported(entriesWith(hasSuffix('_flex'))));
    expect(variantsOf('priority')).toEqual(imported(entriesWith(hasSuffix('_priority'))));
    expect(variantsOf('batch')).toEqual(imported(entriesWith(hasSuffix('_batches'))));
    expect(variantsOf('fast')).toEqual(imported(entriesWith((e) => typeof (e.provider_specific_entry as { fast?: unknown } | undefined)?.fast === 'number')));
    expect(variantsOf('eu')).toEqual(imported(entriesWith((e) => e.regional_processing_uplift_multiplier_eu !== undefined)));
    const perplexityOrPreview = entriesWith((e) => e.search_context_cost_per_query !== undefined && (e.litellm_provider === 'perplexity'));
    expect(perplexityOrPreview.every((m) => variantsOf('high').includes(m))).toBe(true);
  });

  it('turns every tiered_pricing token range list (the Qwen and Doubao models) into a base and tiers', () => {
    const ranged = entriesWith((e) => Array.isArray(e.tiered_pricing) && (e.tiered_pricing as { range?: unknown }[]).every((r) => r.range !== undefined));
    expect(ranged).toHaveLength(18);
    for (const model of ranged) {
      const ranges = (raw[model]?.tiered_pricing as unknown[]).length;
      expect(standardOf.get(model)?.tiers).toHaveLength(ranges - 1);
    }
  });

  it('every imported per-token price equals its decimal text in the file, exactly', () => {
    const fieldOf = { input: 'input_cost_per_token', output: 'output_cost_per_token', cached_input: 'cache_read_input_token_cost', cache_write_5m: 'cache_creation_input_token_cost' } as const;
    let checked = 0;
    for (const [model, version] of standardOf) {
      const entry = document[model] as Record<string, unknown>;
      for (const [kind, field] of Object.entries(fieldOf) as [keyof typeof fieldOf, string][]) {
        const value = entry[field];
        if (!isLosslessNumber(value) || version.prices[kind] === undefined) continue;
        // USD per token at scale 12 is micro-USD per Mtok.
        expect(version.prices[kind]).toBe(decimalTextToScaled(value.value, 12));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it('imports nothing at 0 silently: no optional price, tier price or fee of 0, no all-zero version', () => {
    const zeroSomewhere = (v: VersionDraft) =>
      PRICE_KINDS.some((k) => k !== 'input' && k !== 'output' && v.prices[k] === 0n) ||
      v.tiers.some((t) => Object.values(t.prices).some((p) => p === 0n)) ||
      v.webSearch?.feePicoUsd === 0n ||
      v.requestFeePicoUsd === 0n;
    expect(plan.versions.filter(zeroSomewhere)).toEqual([]);
    expect(plan.versions.filter((v) => v.prices.input === 0n && v.prices.output === 0n && v.tiers.length === 0 && !v.webSearch && !v.requestFeePicoUsd)).toEqual([]);
  });

  it('lists dropped fields only for models it imports', () => {
    const skippedModels = new Set(plan.skipped.filter((s) => !s.variant).map((s) => s.model));
    expect(plan.dropped.filter((d) => skippedModels.has(d.model))).toEqual([]);
    expect(new Set(plan.dropped.map((d) => d.model)).size).toBe(124);
  });

  it('reports the float artifacts as precision skips, never imports them rounded', () => {
    const precision = plan.skipped.filter((s) => s.code === 'precision');
    expect(precision.every((s) => s.model.startsWith('databricks/'))).toBe(true);
    expect(precision.find((s) => s.model === 'databricks/databricks-claude-3-7-sonnet')?.reason).toBe(
      'input_cost_per_token 2.9999900000000002e-06 needs more than 6 decimals',
    );
  });

  it('prices the models of the issue as their price lists say', () => {
    const body = (model: string, variant = 'standard') => {
      const version = plan.versions.find((v) => v.model === model && v.variant === variant);
      return version ? toPriceBody(version) : undefined;
    };
    expect(body('claude-opus-4-6')).toMatchObject({ cache_write_5m_usd_per_mtok: '6.25', cache_write_1h_usd_per_mtok: '10', web_search_billing: 'per_call' });
    expect(body('claude-opus-4-6', 'us')).toMatchObject({ input_usd_per_mtok: '5.5', output_usd_per_mtok: '27.5' });
    expect(body('gemini-2.5-pro')?.tiers).toEqual([{ above_input_tokens: 200000, inclusive: false, input_usd_per_mtok: '2.5', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.25' }]);
    expect(body('gpt-4o-audio-preview')).toMatchObject({ input_audio_usd_per_mtok: '40', output_audio_usd_per_mtok: '80' });
    expect(body('gpt-5', 'flex')).toMatchObject({ input_usd_per_mtok: '0.625', output_usd_per_mtok: '5' });
    expect(body('perplexity/sonar', 'high')).toMatchObject({ request_usd: '0.012' });
    expect(body('dashscope/qwen-plus-latest')?.tiers).toEqual([
      { above_input_tokens: 256000, inclusive: false, input_usd_per_mtok: '1.2', output_usd_per_mtok: '3.6', reasoning_usd_per_mtok: '12' },
    ]);
  });
});
