// A price version's terms between their three forms: the validated api.md body (what operators
// and the importers send), the stored form (NUMERIC columns + tiers JSONB of integer strings) and
// the response JSON. Pure.
import { formatAttoAsUsd } from '../../common/money/index.js';
import { PRICE_WIRE_FIELDS, PRICE_WIRE_NAMES, type PriceWireName } from './price-rules.js';
import type { CreatePriceBody } from './pricing.schemas.js';
import { PRICE_FIELDS, type ContextTier, type KindPrices, type PriceField, type PriceTerms } from './pricing.types.js';

/** A new version as the service stores it: identity (effective_from defaults to now) + terms. */
export interface PriceVersionDraft extends PriceTerms {
  model: string;
  variant: string;
  effectiveFrom?: Date;
}

/**
 * The hand-over point for every producer of prices (POST /v1/admin/prices, the LiteLLM and
 * genai-prices importers): a body that passed createPriceSchema -> the version to store. Tiers come
 * out ascending by threshold; web_search_billing defaults to per_call when a search fee is given.
 */
export function priceDraftFromBody(body: CreatePriceBody): PriceVersionDraft {
  const tiers: ContextTier[] = (body.tiers ?? [])
    .map((tier) => {
      const prices: Partial<Record<PriceField, bigint>> = {};
      for (const name of PRICE_WIRE_NAMES) {
        const value = tier[name];
        if (value !== undefined) prices[PRICE_WIRE_FIELDS[name]] = value;
      }
      return { aboveInputTokens: tier.above_input_tokens, inclusive: tier.inclusive, prices };
    })
    .sort((a, b) => a.aboveInputTokens - b.aboveInputTokens);
  const webSearch = body.web_search_usd_per_call ?? null;
  return {
    model: body.model,
    variant: body.variant,
    effectiveFrom: body.effective_from,
    ...kindPricesFromBody(body),
    tiers,
    webSearchAttoPerCall: webSearch,
    webSearchBilling: webSearch === null ? null : (body.web_search_billing ?? 'per_call'),
    requestAtto: body.request_usd ?? null,
  };
}

/** The body's own *_usd_per_mtok prices under their PriceField names; an absent one is null (no price). */
function kindPricesFromBody(body: CreatePriceBody): KindPrices {
  const prices = {} as KindPrices;
  for (const name of PRICE_WIRE_NAMES) prices[PRICE_WIRE_FIELDS[name]] = body[name] ?? null;
  return prices;
}

/** Two versions charge the same for every request (the replay / "unchanged import" test). */
export function samePriceTerms(a: PriceTerms, b: PriceTerms): boolean {
  for (const field of PRICE_FIELDS) if (a[field] !== b[field]) return false;
  return (
    a.webSearchAttoPerCall === b.webSearchAttoPerCall &&
    a.webSearchBilling === b.webSearchBilling &&
    a.requestAtto === b.requestAtto &&
    tiersToStored(a.tiers) === tiersToStored(b.tiers)
  );
}

const FIELD_COLUMN: Record<PriceField, string> = {
  inputAttoPerMtok: 'input_atto_per_mtok',
  outputAttoPerMtok: 'output_atto_per_mtok',
  cachedInputAttoPerMtok: 'cached_input_atto_per_mtok',
  cacheWrite5mAttoPerMtok: 'cache_write_5m_atto_per_mtok',
  cacheWrite1hAttoPerMtok: 'cache_write_1h_atto_per_mtok',
  inputAudioAttoPerMtok: 'input_audio_atto_per_mtok',
  cachedInputAudioAttoPerMtok: 'cached_input_audio_atto_per_mtok',
  outputAudioAttoPerMtok: 'output_audio_atto_per_mtok',
  inputImageAttoPerMtok: 'input_image_atto_per_mtok',
  outputImageAttoPerMtok: 'output_image_atto_per_mtok',
  reasoningAttoPerMtok: 'reasoning_atto_per_mtok',
};
const COLUMN_FIELD = new Map(Object.entries(FIELD_COLUMN).map(([field, column]) => [column, field as PriceField]));

/** The tiers column's canonical JSON text: ascending, prices as integer atto strings (exact). */
export function tiersToStored(tiers: readonly ContextTier[]): string {
  return JSON.stringify(
    tiers.map((tier) => {
      const row: Record<string, unknown> = { above_input_tokens: tier.aboveInputTokens, inclusive: tier.inclusive };
      for (const field of PRICE_FIELDS) {
        const value = tier.prices[field];
        if (value !== undefined) row[FIELD_COLUMN[field]] = value.toString();
      }
      return row;
    }),
  );
}

export function tiersFromStored(stored: unknown): ContextTier[] {
  if (!Array.isArray(stored)) throw new Error('prices.tiers is not an array');
  return stored.map((row: Record<string, unknown>) => {
    const prices: Partial<Record<PriceField, bigint>> = {};
    for (const [key, value] of Object.entries(row)) {
      const field = COLUMN_FIELD.get(key);
      if (field !== undefined) prices[field] = BigInt(value as string);
    }
    return { aboveInputTokens: Number(row.above_input_tokens), inclusive: row.inclusive === true, prices };
  });
}

const usdOrNull = (atto: bigint | null) => (atto === null ? null : formatAttoAsUsd(atto));

/** The terms in the api.md response spelling (decimal USD strings). */
export function priceTermsToJson(terms: PriceTerms) {
  const prices = {} as Record<PriceWireName, string | null>;
  for (const name of PRICE_WIRE_NAMES) prices[name] = usdOrNull(terms[PRICE_WIRE_FIELDS[name]]);
  return {
    ...prices,
    tiers: terms.tiers.map((tier) => {
      const listed: Partial<Record<PriceWireName, string>> = {};
      for (const name of PRICE_WIRE_NAMES) {
        const value = tier.prices[PRICE_WIRE_FIELDS[name]];
        if (value !== undefined) listed[name] = formatAttoAsUsd(value);
      }
      return { above_input_tokens: tier.aboveInputTokens, inclusive: tier.inclusive, ...listed };
    }),
    web_search_usd_per_call: usdOrNull(terms.webSearchAttoPerCall),
    web_search_billing: terms.webSearchBilling,
    request_usd: usdOrNull(terms.requestAtto),
  };
}
