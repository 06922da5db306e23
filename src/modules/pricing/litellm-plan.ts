// LiteLLM's model_prices_and_context_window.json -> price versions (one per model and variant),
// with every model, variant or price-changing field left out reported with a reason. The rules are
// docs/pricing.md "Importing catalogs"; the field grammar is litellm-fields.ts. Pure.
import { isLosslessNumber } from 'lossless-json';
import { PRICE_KINDS, missingRootKinds, type CatalogPlan, type CatalogKindPrices, type OmissionCode, type TierDraft, type VersionDraft } from './catalog-price-body.js';
import { drop, emptyBucket, isPlainObject, readEntryFields, REASON_LENGTH_MAX, type Bucket, type EntryFields, type Failure } from './litellm-entry-fields.js';
import { MULTIPLIER_SCALE, SERVICE_TIER_VARIANTS, readMultiplier, type ServiceTierSuffix } from './litellm-fields.js';
import { planSearchFees, type SearchFeePlan } from './litellm-plan-fees.js';
import { readTieredPricing } from './litellm-tiered-pricing.js';
import { isValidModelName } from './price-rules.js';

/** LiteLLM's documentation entry, not a model. */
export const LITELLM_SAMPLE_SPEC_KEY = 'sample_spec';
export const STANDARD_VARIANT = 'standard';
/** Top-level keys of catalog metadata (the mirror's date), not models. */
export const LITELLM_METADATA_KEYS: readonly string[] = ['last_updated'];

/** Every key ends up in versions or skipped, so nothing disappears silently. */
export function planLitellmCatalog(document: Record<string, unknown>): CatalogPlan {
  const plan: CatalogPlan = { versions: [], skipped: [], dropped: [] };
  for (const [model, entry] of Object.entries(document)) {
    const part = planLitellmEntry(model, entry);
    plan.versions.push(...part.versions);
    plan.skipped.push(...part.skipped);
    plan.dropped.push(...part.dropped);
  }
  return plan;
}

export function planLitellmEntry(model: string, entry: unknown): CatalogPlan {
  const plan: CatalogPlan = { versions: [], skipped: [], dropped: [] };
  const skip = (code: OmissionCode, reason: string, variant?: string): CatalogPlan => {
    // A skipped model's own field drops say nothing more: only imported models list them.
    if (variant === undefined) plan.dropped = [];
    plan.skipped.push({ model: model.slice(0, REASON_LENGTH_MAX), ...(variant === undefined ? {} : { variant }), code, reason: reason.slice(0, REASON_LENGTH_MAX) });
    return plan;
  };
  if (model === LITELLM_SAMPLE_SPEC_KEY) return skip('not_a_model', 'documentation entry, not a model');
  if (LITELLM_METADATA_KEYS.includes(model) && !isPlainObject(entry)) return skip('not_a_model', 'catalog metadata, not a model');
  if (!isValidModelName(model)) return skip('invalid', 'model name must be 1..200 printable characters without whitespace');
  if (!isPlainObject(entry)) return skip('invalid', 'entry is not an object');

  const fields = readEntryFields(model, entry);
  plan.dropped = fields.dropped;
  const standardFailure = fields.failures.get('');
  if (standardFailure) return skip(standardFailure.code, standardFailure.reason);

  const standardBucket = fields.buckets.get('') ?? emptyBucket();
  const tiered = fields.special.tiered_pricing === undefined ? null : readTieredPricing(fields.special.tiered_pricing);
  let basePrices = standardBucket.prices;
  let tieredTiers: TierDraft[] = [];
  if (tiered !== null) {
    if (tiered.type === 'failure') return skip(tiered.code, tiered.reason);
    if (tiered.type === 'not_token_priced') fields.notTokenPriced.push('tiered_pricing (per query by result count)');
    else if (standardBucket.prices.input !== undefined || standardBucket.prices.output !== undefined) {
      drop(fields, 'tiered_pricing', 'invalid', 'tiered_pricing beside flat per-token prices; the flat prices are used');
    } else {
      basePrices = tiered.base;
      tieredTiers = tiered.tiers;
      for (const dropped of tiered.dropped) drop(fields, dropped.field, dropped.code, dropped.reason);
    }
  }

  const missingRoots = missingRootKinds(basePrices);
  if (missingRoots.length > 0) {
    if (fields.notTokenPriced.length > 0) return skip('not_token_priced', `priced per ${fields.notTokenPriced.join(', ')}, not per token`);
    return skip('not_token_priced', `no per-token ${missingRoots.join(' and ')} price`);
  }
  const fees = planSearchFees(fields);
  if (fees.type === 'failure') return skip(fees.code, fees.reason);

  const standard: VersionDraft = {
    model,
    variant: STANDARD_VARIANT,
    prices: basePrices,
    tiers: mergeTiers(tieredTiers, standardBucket.tiers),
    webSearch: fees.standard.webSearch,
    requestFeePicoUsd: fees.standard.requestFeePicoUsd,
    effectiveFrom: null,
  };
  if (isZeroPriced(standard)) {
    if (fields.notTokenPriced.length > 0) return skip('not_token_priced', `0 per token; priced per ${fields.notTokenPriced.join(', ')}`);
    return skip('zero_priced', 'every price is 0 (nothing is imported at 0)');
  }
  for (const field of fields.notTokenPriced) drop(fields, field, 'not_token_priced', 'not a per-token price; this service prices tokens and fees');
  plan.versions.push(standard);

  const push = (variant: string, draft: VersionDraft | Failure): void => {
    if ('code' in draft) skip(draft.code, draft.reason, variant);
    else if (isZeroPriced(draft)) skip('zero_priced', 'every price is 0 (nothing is imported at 0)', variant);
    else plan.versions.push(draft);
  };
  for (const suffix of Object.keys(SERVICE_TIER_VARIANTS) as ServiceTierSuffix[]) {
    const bucket = fields.buckets.get(suffix);
    if (!bucket) continue;
    const variant = SERVICE_TIER_VARIANTS[suffix];
    push(variant, fields.failures.get(suffix) ?? overlayVariant(standard, variant, bucket));
  }
  for (const { variant, field, value } of readMultipliers(fields)) {
    const multiplier = readMultiplier(field, value);
    push(variant, multiplier.ok ? multiplyVersion(standard, variant, field, multiplier.value) : multiplier);
  }
  for (const sized of sizeVariants(standard, fees)) push(sized.variant, sized);
  return plan;
}

function readMultipliers(fields: EntryFields): { variant: string; field: string; value: unknown }[] {
  const found: { variant: string; field: string; value: unknown }[] = [];
  const specific = fields.special.provider_specific_entry;
  if (isPlainObject(specific)) {
    for (const [key, value] of Object.entries(specific)) {
      if (key === 'us' || key === 'fast') found.push({ variant: key, field: `provider_specific_entry.${key}`, value });
      else if (isLosslessNumber(value)) drop(fields, `provider_specific_entry.${key}`, 'unknown_field', 'not a multiplier this importer knows');
    }
  }
  for (const region of ['eu', 'us'] as const) {
    const field = `regional_processing_uplift_multiplier_${region}` as const;
    const value = fields.special[field];
    if (value === undefined) continue;
    if (found.some((m) => m.variant === region)) drop(fields, field, 'invalid', `a "${region}" variant is already given by provider_specific_entry`);
    else found.push({ variant: region, field, value });
  }
  return found;
}

/** A service-tier variant: the standard version with the tier's own prices (LiteLLM's fallback). */
function overlayVariant(standard: VersionDraft, variant: string, bucket: Bucket): VersionDraft {
  return { ...standard, variant, prices: { ...standard.prices, ...bucket.prices }, tiers: mergeTiers(standard.tiers, bucket.tiers) };
}

/** Every token price times the multiplier, exactly; fees are not multiplied. */
function multiplyVersion(standard: VersionDraft, variant: string, field: string, numerator: bigint): VersionDraft | Failure {
  const denominator = 10n ** BigInt(MULTIPLIER_SCALE);
  const failures: Failure[] = [];
  const multiply = (prices: CatalogKindPrices): CatalogKindPrices => {
    const result: CatalogKindPrices = {};
    for (const kind of PRICE_KINDS) {
      const value = prices[kind];
      if (value === undefined) continue;
      const product = value * numerator;
      if (product % denominator !== 0n) failures.push({ code: 'precision', reason: `${field} times the ${kind} price needs more than 6 decimals per Mtok` });
      result[kind] = product / denominator;
    }
    return result;
  };
  const version = { ...standard, variant, prices: multiply(standard.prices), tiers: standard.tiers.map((tier) => ({ ...tier, prices: multiply(tier.prices) })) };
  return failures[0] ?? version;
}

function sizeVariants(standard: VersionDraft, fees: SearchFeePlan & { type: 'ok' }): VersionDraft[] {
  return fees.bySize.map((sized) => ({ ...standard, variant: sized.variant, webSearch: sized.webSearch, requestFeePicoUsd: sized.requestFeePicoUsd }));
}

function mergeTiers(base: readonly TierDraft[], overlay: ReadonlyMap<number, CatalogKindPrices>): TierDraft[] {
  const byThreshold = new Map(base.map((tier) => [tier.aboveInputTokens, { ...tier, prices: { ...tier.prices } }]));
  for (const [aboveInputTokens, prices] of overlay) {
    const tier = byThreshold.get(aboveInputTokens) ?? { aboveInputTokens, inclusive: false, prices: {} };
    tier.prices = { ...tier.prices, ...prices };
    byThreshold.set(aboveInputTokens, tier);
  }
  return [...byThreshold.values()].filter((tier) => Object.keys(tier.prices).length > 0).sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
}

function isZeroPriced(version: VersionDraft): boolean {
  const allZero = (prices: CatalogKindPrices) => Object.values(prices).every((value) => value === 0n);
  return allZero(version.prices) && version.tiers.every((tier) => allZero(tier.prices)) && version.webSearch === null && version.requestFeePicoUsd === null;
}

