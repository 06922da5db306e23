// The grammar of LiteLLM's price fields and the exact reading of their values. A per-token field is
// <kind>[_above_<N>k_tokens][_flex|_priority|_batches]; everything else price-like is a fee, a
// multiplier, a non-token price or unknown. Values are read from their decimal text. Pure.
import { isLosslessNumber } from 'lossless-json';
import {
  FEE_SCALE,
  IMPORT_FEE_PICO_USD_MAX,
  IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX,
  PRICE_SCALE,
  formatMicroUsdPerMtok,
  formatPicoUsd,
  type OmissionCode,
  type PriceKind,
} from './catalog-price-body.js';
import { ownEntry } from '../../common/collections/own-entry.js';
import { DecimalTextError, decimalTextToScaled } from './decimal-text.js';

/** LiteLLM's per-token base names -> the price kind (pricing.md, "Importing catalogs"). */
export const LITELLM_KIND_FIELDS: Readonly<Record<string, PriceKind>> = {
  input_cost_per_token: 'input',
  output_cost_per_token: 'output',
  cache_read_input_token_cost: 'cached_input',
  /** DeepSeek's and OpenRouter's name for the cache-read price. */
  input_cost_per_token_cache_hit: 'cached_input',
  cache_creation_input_token_cost: 'cache_write_5m',
  cache_creation_input_token_cost_above_1hr: 'cache_write_1h',
  input_cost_per_audio_token: 'input_audio',
  cache_read_input_audio_token_cost: 'cached_input_audio',
  /**
   * Misnamed on OpenAI's realtime models: the price of cached input audio, read from the cache
   * (gpt-realtime: 0.4 USD per Mtok, where OpenAI lists 0.40 for cached audio input). LiteLLM's
   * own calculator has no audio cache write either; cache_read_input_audio_token_cost wins when
   * an entry has both (litellm-entry-fields.ts reads this one last).
   */
  cache_creation_input_audio_token_cost: 'cached_input_audio',
  output_cost_per_audio_token: 'output_audio',
  input_cost_per_image_token: 'input_image',
  output_cost_per_image_token: 'output_image',
  output_cost_per_reasoning_token: 'reasoning',
};

/** LiteLLM's service-tier suffix -> the variant label. */
export const SERVICE_TIER_VARIANTS = { flex: 'flex', priority: 'priority', batches: 'batch' } as const;
export type ServiceTierSuffix = keyof typeof SERVICE_TIER_VARIANTS;

const KIND_FIELD_PATTERN = new RegExp(
  `^(${Object.keys(LITELLM_KIND_FIELDS)
    .sort((a, b) => b.length - a.length)
    .join('|')})(?:_above_(\\d{1,4})k_tokens)?(?:_(flex|priority|batches))?$`,
);

export interface KindField {
  kind: PriceKind;
  /** Context tier threshold in tokens (LiteLLM's "128k" is 128,000), or null for the base price. */
  aboveInputTokens: number | null;
  serviceTier: ServiceTierSuffix | null;
}

export function parseKindField(field: string): KindField | null {
  const match = KIND_FIELD_PATTERN.exec(field);
  if (!match) return null;
  const [, base = '', thousands, serviceTier] = match;
  const kind = ownEntry(LITELLM_KIND_FIELDS, base);
  if (kind === undefined) return null;
  return {
    kind,
    aboveInputTokens: thousands === undefined ? null : Number(thousands) * 1000,
    serviceTier: (serviceTier as ServiceTierSuffix | undefined) ?? null,
  };
}

/** Fields whose unit is not a token: a price per image, second, character, pixel, query, page... */
const NOT_TOKEN_PRICED_PATTERN =
  /_per_(image|pixel|second|character|query|page|credit|session|gb_per_day|1k_calls|video_per_second|audio_per_second)(_|$)|_per_second_/;
/** Token prices without a usage kind here: each is dropped with its own explanation. */
const UNSUPPORTED_TOKEN_FIELDS: Readonly<Record<string, string>> = {
  citation_cost_per_token: 'citation tokens have no usage kind; they bill as output',
  output_cost_per_video_token: 'video tokens have no usage kind; they bill as output',
  computer_use_input_cost_per_1k_tokens: 'computer-use tokens have no usage kind; they bill as input',
  computer_use_output_cost_per_1k_tokens: 'computer-use tokens have no usage kind; they bill as output',
  input_dbu_cost_per_token: 'priced in Databricks units, not USD; input_cost_per_token (USD) is used',
  output_dbu_cost_per_token: 'priced in Databricks units, not USD; output_cost_per_token (USD) is used',
};

export type FieldClass =
  | { type: 'kind'; field: KindField }
  | { type: 'special'; name: SpecialField }
  | { type: 'not_token_priced' }
  | { type: 'unsupported'; reason: string }
  | { type: 'unknown' }
  | { type: 'ignored' };

export const SPECIAL_FIELDS = [
  'tiered_pricing',
  'provider_specific_entry',
  'regional_processing_uplift_multiplier_eu',
  'regional_processing_uplift_multiplier_us',
  'search_context_cost_per_query',
  'web_search_billing_unit',
  'web_search_cost_per_request',
  'input_cost_per_request',
] as const;
export type SpecialField = (typeof SPECIAL_FIELDS)[number];

/** Anything that could change a price; the rest (limits, capabilities, metadata) is ignored. */
const PRICE_LIKE_PATTERN = /cost|price|multiplier|billing|fee|tier/;

export function classifyField(field: string): FieldClass {
  const kind = parseKindField(field);
  if (kind) return { type: 'kind', field: kind };
  if ((SPECIAL_FIELDS as readonly string[]).includes(field)) return { type: 'special', name: field as SpecialField };
  const unsupported = ownEntry(UNSUPPORTED_TOKEN_FIELDS, field);
  if (unsupported !== undefined) return { type: 'unsupported', reason: unsupported };
  if (/^supports?_|^supported_/.test(field) || !PRICE_LIKE_PATTERN.test(field)) return { type: 'ignored' };
  if (NOT_TOKEN_PRICED_PATTERN.test(field)) return { type: 'not_token_priced' };
  return { type: 'unknown' };
}

export type ReadResult = { ok: true; value: bigint } | { ok: false; code: OmissionCode; reason: string };

/** "2.5e-06" USD per token -> 2500000n micro-USD per Mtok (2.5 USD per Mtok), exactly. */
export function readPerTokenPrice(field: string, value: unknown): ReadResult {
  // USD per token at scale 12 is micro-USD per Mtok.
  return readScaled(field, value, PRICE_SCALE + 6, IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX, (v) => `${formatMicroUsdPerMtok(v)} USD per Mtok`, 6);
}

/** "0.035" USD -> 35000000000n pico-USD, exactly. `perUnits` 1000 reads a price per thousand. */
export function readFee(field: string, value: unknown, perUnits: 1 | 1000 = 1): ReadResult {
  const scale = perUnits === 1 ? FEE_SCALE : FEE_SCALE - 3;
  return readScaled(field, value, scale, IMPORT_FEE_PICO_USD_MAX, (v) => `${formatPicoUsd(v)} USD`, 12);
}

/** A positive multiplier such as 1.1, as numerator over 10^6. */
export const MULTIPLIER_SCALE = 6;
export function readMultiplier(field: string, value: unknown): ReadResult {
  const result = readScaled(field, value, MULTIPLIER_SCALE, 1_000n * 10n ** BigInt(MULTIPLIER_SCALE), (v) => `x${v}`, MULTIPLIER_SCALE);
  if (result.ok && result.value === 0n) return { ok: false, code: 'invalid', reason: `${field} is a zero multiplier` };
  return result;
}

function readScaled(field: string, value: unknown, scale: number, max: bigint, describe: (v: bigint) => string, decimals: number): ReadResult {
  if (!isLosslessNumber(value)) return { ok: false, code: 'invalid', reason: `${field} is not a JSON number` };
  let scaled: bigint;
  try {
    scaled = decimalTextToScaled(value.value, scale);
  } catch (error) {
    if (!(error instanceof DecimalTextError)) throw error;
    if (error.problem === 'inexact') {
      return { ok: false, code: 'precision', reason: `${field} ${value.value} needs more than ${decimals} decimals` };
    }
    return { ok: false, code: 'invalid', reason: `${field} ${error.message}` };
  }
  if (scaled < 0n) return { ok: false, code: 'invalid', reason: `${field} ${value.value} is negative` };
  if (scaled > max) return { ok: false, code: 'invalid', reason: `${field} ${value.value} is above ${describe(max)}` };
  return { ok: true, value: scaled };
}

/** A whole number of tokens from its decimal text ("256000.0" is 256000). */
export function readTokenCount(field: string, value: unknown): number | string {
  if (!isLosslessNumber(value)) return `${field} is not a JSON number`;
  try {
    const count = decimalTextToScaled(value.value, 0);
    if (count < 0n || count > BigInt(Number.MAX_SAFE_INTEGER)) return `${field} ${value.value} is out of range`;
    return Number(count);
  } catch {
    return `${field} ${value.value} is not a whole number of tokens`;
  }
}
