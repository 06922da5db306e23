// Rules every price version obeys, whether it arrives through the API or a LiteLLM import.
import { ATTO_PER_USD } from '../../common/money/index.js';
import type { PriceField } from './pricing.types.js';

export const MODEL_NAME_LENGTH_MAX = 200;
/** Printable ASCII without whitespace: "openai/gpt-4o", "claude-sonnet-4-5-20250929-v1:0". */
export const MODEL_NAME_PATTERN = /^[\x21-\x7E]+$/;
/** Prices are per million tokens with at most 6 decimals of USD (see design.md, Money). */
export const PRICE_DECIMALS_MAX = 6;
/** Sanity bound far above any list price; a bigger value is a typo (or a per-token value). */
export const PRICE_USD_PER_MTOK_MAX = 1_000_000n;
export const PRICE_ATTO_PER_MTOK_MAX = PRICE_USD_PER_MTOK_MAX * ATTO_PER_USD;

export function isValidModelName(model: string): boolean {
  return model.length >= 1 && model.length <= MODEL_NAME_LENGTH_MAX && MODEL_NAME_PATTERN.test(model);
}

/** Fees (per web search call, per request) have at most 12 decimals of USD. */
export const FEE_DECIMALS_MAX = 12;
export const FEE_USD_MAX = 1_000_000n;
export const FEE_ATTO_MAX = FEE_USD_MAX * ATTO_PER_USD;
/** Variant labels: "standard", "flex", "us", "low", ... (api.md). */
export const PRICE_VARIANT_PATTERN = /^[a-z0-9._-]{1,64}$/;
export const PRICE_TIERS_MAX = 32;
/** A context threshold fits the events' INTEGER token columns. */
export const TOKEN_THRESHOLD_MAX = 2_147_483_647;

/** Wire name of each per-Mtok price <-> its field (docs/api.md "Prices (admin)"). */
export const PRICE_WIRE_FIELDS = {
  input_usd_per_mtok: 'inputAttoPerMtok',
  output_usd_per_mtok: 'outputAttoPerMtok',
  cached_input_usd_per_mtok: 'cachedInputAttoPerMtok',
  cache_write_5m_usd_per_mtok: 'cacheWrite5mAttoPerMtok',
  cache_write_1h_usd_per_mtok: 'cacheWrite1hAttoPerMtok',
  input_audio_usd_per_mtok: 'inputAudioAttoPerMtok',
  cached_input_audio_usd_per_mtok: 'cachedInputAudioAttoPerMtok',
  output_audio_usd_per_mtok: 'outputAudioAttoPerMtok',
  input_image_usd_per_mtok: 'inputImageAttoPerMtok',
  output_image_usd_per_mtok: 'outputImageAttoPerMtok',
  reasoning_usd_per_mtok: 'reasoningAttoPerMtok',
} as const satisfies Record<string, PriceField>;
export type PriceWireName = keyof typeof PRICE_WIRE_FIELDS;
export const PRICE_WIRE_NAMES = Object.keys(PRICE_WIRE_FIELDS) as PriceWireName[];
