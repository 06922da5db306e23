// What a catalog import produces: price versions in the shape of the POST /v1/admin/prices body
// (docs/api.md), with decimal-string prices, plus what was left out and why. The importers work
// in exact integers (micro-USD per Mtok, pico-USD per fee) and format only here. Pure.
import { formatScaledDecimal } from '../../common/money/index.js';

/** Every per-kind price of a version (docs/pricing.md), in the order of the api.md body. */
export const PRICE_KINDS = [
  'input',
  'output',
  'cached_input',
  'cache_write_5m',
  'cache_write_1h',
  'input_audio',
  'cached_input_audio',
  'output_audio',
  'input_image',
  'output_image',
  'reasoning',
] as const;
export type PriceKind = (typeof PRICE_KINDS)[number];
/** Input and output are required on every version; the other kinds fall back to a parent. */
export const REQUIRED_PRICE_KINDS: readonly PriceKind[] = ['input', 'output'];

/**
 * A root kind may be missing only when the version prices that side otherwise: gpt-image-1 lists
 * an output image price and no text output price (pricing.md: a version needs a price only for
 * the kinds an event uses). The same rule as createPriceSchema's.
 */
export const ROOT_PRICE_STAND_INS: Readonly<Record<'input' | 'output', readonly PriceKind[]>> = {
  input: ['input_image', 'input_audio'],
  output: ['output_image', 'output_audio'],
};

/** The root kinds a version lacks with nothing to stand in for them (empty: the version can be stored). */
export function missingRootKinds(prices: CatalogKindPrices): ('input' | 'output')[] {
  return (['input', 'output'] as const).filter((root) => prices[root] === undefined && ROOT_PRICE_STAND_INS[root].every((kind) => prices[kind] === undefined));
}

/** Per-Mtok prices have at most 6 decimals of USD: micro-USD per Mtok is a whole number. */
export const PRICE_SCALE = 6;
/** Fees have at most 12 decimals of USD: pico-USD is a whole number. */
export const FEE_SCALE = 12;
/** Sanity bounds far above any list price; bigger is a typo or a unit mistake. */
export const IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX = 1_000_000n * 10n ** BigInt(PRICE_SCALE);
export const IMPORT_FEE_PICO_USD_MAX = 1_000n * 10n ** BigInt(FEE_SCALE);

/** Micro-USD per Mtok by kind; a missing kind bills at its parent's price. */
export type CatalogKindPrices = Partial<Record<PriceKind, bigint>>;

export interface TierDraft {
  aboveInputTokens: number;
  /** true: applies when prompt tokens >= aboveInputTokens; false: when >. */
  inclusive: boolean;
  prices: CatalogKindPrices;
}

export type WebSearchBilling = 'per_call' | 'per_request';

export interface VersionDraft {
  model: string;
  variant: string;
  /** Holds at least input and output. */
  prices: CatalogKindPrices;
  /** Ascending by aboveInputTokens, thresholds distinct. */
  tiers: TierDraft[];
  webSearch: { feePicoUsd: bigint; billing: WebSearchBilling } | null;
  requestFeePicoUsd: bigint | null;
  /** Catalog date the version starts at (genai-prices history); null: the import's effective_from. */
  effectiveFrom: Date | null;
}

export type PriceFieldName = `${PriceKind}_usd_per_mtok`;
export type TierBody = { above_input_tokens: number; inclusive?: boolean } & Partial<Record<PriceFieldName, string>>;

/** The api.md POST /v1/admin/prices body (effective_from is the import's unless dated). */
export type PriceBody = {
  model: string;
  variant: string;
  effective_from?: string;
  tiers?: TierBody[];
  web_search_usd_per_call?: string;
  web_search_billing?: WebSearchBilling;
  request_usd?: string;
} & Partial<Record<PriceFieldName, string>>;

/** Why a model, a variant or a field did not make it into the catalog. */
export type OmissionCode =
  /** a price needs more decimals than the model holds (6 per Mtok, 12 per fee), also after a multiplier */
  | 'precision'
  /** priced per image, second, character, query... rather than per token */
  | 'not_token_priced'
  /** every price 0, or an optional price 0 that would bill a kind for free */
  | 'zero_priced'
  /** a price-like field this importer does not know */
  | 'unknown_field'
  /** a known price this service has no usage kind for (audio cache writes, citation or video tokens...) */
  | 'unsupported'
  /** malformed: not a number, negative, absurd, an inconsistent structure */
  | 'invalid'
  /** the catalog's documentation entry */
  | 'not_a_model'
  /** a different version of that (model, variant) already starts at that instant (versions are immutable) */
  | 'conflict';

export interface SkippedEntry {
  model: string;
  /** Absent: the whole model (every variant) was skipped. */
  variant?: string;
  code: OmissionCode;
  reason: string;
}

export interface DroppedField {
  model: string;
  field: string;
  code: OmissionCode;
  reason: string;
}

export interface CatalogPlan {
  versions: VersionDraft[];
  skipped: SkippedEntry[];
  dropped: DroppedField[];
}

export function priceFieldName(kind: PriceKind): PriceFieldName {
  return `${kind}_usd_per_mtok`;
}

export function formatMicroUsdPerMtok(value: bigint): string {
  return formatScaledDecimal(value, PRICE_SCALE);
}

export function formatPicoUsd(value: bigint): string {
  return formatScaledDecimal(value, FEE_SCALE);
}

export function toPriceBody(draft: VersionDraft): PriceBody {
  const missing = missingRootKinds(draft.prices);
  if (missing.length > 0) throw new Error(`${draft.model} (${draft.variant}) has no ${missing.join(' or ')} price`);
  const body: PriceBody = { model: draft.model, variant: draft.variant, ...kindFields(draft.prices) };
  if (draft.effectiveFrom !== null) body.effective_from = draft.effectiveFrom.toISOString();
  if (draft.tiers.length > 0) {
    body.tiers = draft.tiers.map((tier) => ({
      above_input_tokens: tier.aboveInputTokens,
      inclusive: tier.inclusive,
      ...kindFields(tier.prices),
    }));
  }
  if (draft.webSearch !== null) {
    body.web_search_usd_per_call = formatPicoUsd(draft.webSearch.feePicoUsd);
    body.web_search_billing = draft.webSearch.billing;
  }
  if (draft.requestFeePicoUsd !== null) body.request_usd = formatPicoUsd(draft.requestFeePicoUsd);
  return body;
}

function kindFields(prices: CatalogKindPrices): Partial<Record<PriceFieldName, string>> {
  const fields: Partial<Record<PriceFieldName, string>> = {};
  for (const kind of PRICE_KINDS) {
    const value = prices[kind];
    if (value === undefined) continue;
    fields[priceFieldName(kind)] = formatMicroUsdPerMtok(value);
  }
  return fields;
}

/** Figures an import reports beside its lists. */
export interface CatalogPlanCounts {
  models: number;
  versions: number;
  variants: Record<string, number>;
  tiers: number;
  versionsWithTiers: number;
  skippedModels: number;
  skippedVariants: number;
  skippedByCode: Partial<Record<OmissionCode, number>>;
  droppedByCode: Partial<Record<OmissionCode, number>>;
}

export function countCatalogPlan(plan: CatalogPlan): CatalogPlanCounts {
  const variants: Record<string, number> = {};
  for (const version of plan.versions) variants[version.variant] = (variants[version.variant] ?? 0) + 1;
  const skippedByCode: Partial<Record<OmissionCode, number>> = {};
  for (const skip of plan.skipped) skippedByCode[skip.code] = (skippedByCode[skip.code] ?? 0) + 1;
  const droppedByCode: Partial<Record<OmissionCode, number>> = {};
  for (const drop of plan.dropped) droppedByCode[drop.code] = (droppedByCode[drop.code] ?? 0) + 1;
  return {
    models: new Set(plan.versions.map((v) => v.model)).size,
    versions: plan.versions.length,
    variants,
    tiers: plan.versions.reduce((sum, v) => sum + v.tiers.length, 0),
    versionsWithTiers: plan.versions.filter((v) => v.tiers.length > 0).length,
    skippedModels: plan.skipped.filter((s) => s.variant === undefined).length,
    skippedVariants: plan.skipped.filter((s) => s.variant !== undefined).length,
    skippedByCode,
    droppedByCode,
  };
}
