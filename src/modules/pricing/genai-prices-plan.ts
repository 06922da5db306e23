// @pydantic/genai-prices' price history -> dated price versions (variant "standard"). Its `prices`
// is a list of conditional prices: the unconstrained one holds since the model exists (imported at
// GENAI_PRICES_EPOCH), a `start_date` one from that UTC midnight. Its numbers are JS numbers written
// as decimals in its data; each is read from its shortest decimal text, exactly. Pure.
import type { CatalogKindPrices, OmissionCode, PriceKind, SkippedEntry, DroppedField, TierDraft, VersionDraft, CatalogPlan } from './catalog-price-body.js';
import { PRICE_SCALE, FEE_SCALE, IMPORT_FEE_PICO_USD_MAX, IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX } from './catalog-price-body.js';
import { ownEntry } from '../../common/collections/own-entry.js';
import { DecimalTextError, decimalTextToScaled } from './decimal-text.js';
import { REASON_LENGTH_MAX } from './litellm-entry-fields.js';

/** Where an unconstrained (undated) genai-prices price starts: before any model it lists. */
export const GENAI_PRICES_EPOCH = new Date('2020-01-01T00:00:00.000Z');
export const GENAI_PRICES_SOURCE = 'genai-prices';

/** genai-prices' per-Mtok price keys -> price kinds. */
export const GENAI_KIND_KEYS: Readonly<Record<string, PriceKind>> = {
  input_mtok: 'input',
  output_mtok: 'output',
  cache_read_mtok: 'cached_input',
  cache_write_mtok: 'cache_write_5m',
  cache_write_1h_mtok: 'cache_write_1h',
  input_audio_mtok: 'input_audio',
  cache_audio_read_mtok: 'cached_input_audio',
  output_audio_mtok: 'output_audio',
  input_image_mtok: 'input_image',
  output_image_mtok: 'output_image',
  output_reasoning_mtok: 'reasoning',
};
const WEB_SEARCH_KEY = 'web_searches_kcount';
const REQUEST_KEY = 'requests_kcount';

/** The shapes of genai-prices' data this importer reads (a subset of its exported types). */
export interface GenaiTieredPrice {
  base: number;
  tiers: { start: number; price: number }[];
}
export type GenaiModelPrice = Record<string, number | GenaiTieredPrice | undefined>;
export interface GenaiConditionalPrice {
  constraint?: { type: 'start_date'; start_date: string } | { type: 'time_of_date'; start_time: string; end_time: string };
  prices: GenaiModelPrice;
}
export interface GenaiModelInfo {
  id: string;
  prices: GenaiConditionalPrice[] | GenaiModelPrice;
}

export interface GenaiTarget {
  /** The name this service prices (a LiteLLM catalog key, a gateway's model name). */
  model: string;
  info: GenaiModelInfo;
}

export function planGenaiPrices(targets: readonly GenaiTarget[]): CatalogPlan {
  const plan: CatalogPlan = { versions: [], skipped: [], dropped: [] };
  for (const target of targets) {
    const part = planGenaiModel(target);
    plan.versions.push(...part.versions);
    plan.skipped.push(...part.skipped);
    plan.dropped.push(...part.dropped);
  }
  return plan;
}

/** One version per dated price, oldest first; one per instant (the later entry wins, as in genai-prices). */
export function planGenaiModel(target: GenaiTarget): CatalogPlan {
  const plan: CatalogPlan = { versions: [], skipped: [], dropped: [] };
  const conditional = Array.isArray(target.info.prices) ? target.info.prices : [{ prices: target.info.prices }];
  const byInstant = new Map<number, VersionDraft | SkippedEntry>();
  for (const [index, entry] of conditional.entries()) {
    const constraint = entry.constraint;
    if (constraint?.type === 'time_of_date') {
      plan.dropped.push(dropped(target.model, `prices[${index}]`, 'unsupported', `a time-of-day price (${constraint.start_time}..${constraint.end_time}) has no version; the all-day price is used`));
      continue;
    }
    const effectiveFrom = constraint?.type === 'start_date' ? new Date(`${constraint.start_date}T00:00:00.000Z`) : GENAI_PRICES_EPOCH;
    if (Number.isNaN(effectiveFrom.getTime())) {
      plan.dropped.push(dropped(target.model, `prices[${index}]`, 'invalid', 'start_date is not a date'));
      continue;
    }
    byInstant.set(effectiveFrom.getTime(), versionOf(target.model, entry.prices, effectiveFrom, index, plan.dropped));
  }
  for (const [, result] of [...byInstant].sort(([a], [b]) => a - b)) {
    if ('code' in result) plan.skipped.push(result);
    else plan.versions.push(result);
  }
  return plan;
}

function versionOf(model: string, prices: GenaiModelPrice, effectiveFrom: Date, index: number, drops: DroppedField[]): VersionDraft | SkippedEntry {
  const at = effectiveFrom.toISOString().slice(0, 10);
  const skip = (code: OmissionCode, reason: string): SkippedEntry => ({ model, variant: 'standard', code, reason: `${reason} (price from ${at})`.slice(0, REASON_LENGTH_MAX) });
  const base: CatalogKindPrices = {};
  const tiered = new Map<PriceKind, { start: number; price: bigint }[]>();
  let webSearch: VersionDraft['webSearch'] = null;
  let requestFeePicoUsd: bigint | null = null;
  for (const [key, value] of Object.entries(prices)) {
    if (value === undefined) continue;
    const field = `prices[${index}].${key}`;
    const kind = ownEntry(GENAI_KIND_KEYS, key);
    if (kind === undefined && key !== WEB_SEARCH_KEY && key !== REQUEST_KEY) {
      drops.push(dropped(model, field, 'unsupported', 'no usage kind or fee for this price key'));
      continue;
    }
    if (kind === undefined) {
      if (typeof value !== 'number') return skip('invalid', `${field} is not a number`);
      // A price per 1,000 calls or requests, in USD: pico-USD per call is the value at scale 9.
      const read = readNumber(field, value, FEE_SCALE - 3, IMPORT_FEE_PICO_USD_MAX);
      if (!read.ok) return skip(read.code, read.reason);
      const fee = read.value;
      if (fee === 0n) drops.push(dropped(model, field, 'zero_priced', '0 is taken as no fee'));
      else if (key === WEB_SEARCH_KEY) webSearch = { feePicoUsd: fee, billing: 'per_call' };
      else requestFeePicoUsd = fee;
      continue;
    }
    const baseNumber = typeof value === 'number' ? value : value.base;
    const read = readNumber(field, baseNumber, PRICE_SCALE, IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX);
    if (!read.ok) return skip(read.code, read.reason);
    if (read.value === 0n && kind !== 'input' && kind !== 'output') {
      drops.push(dropped(model, field, 'zero_priced', '0 is taken as not listed (its parent price applies), never as free'));
      continue;
    }
    base[kind] = read.value;
    if (typeof value === 'number') continue;
    const steps: { start: number; price: bigint }[] = [];
    for (const tier of value.tiers) {
      const price = readNumber(`${field}.tiers`, tier.price, PRICE_SCALE, IMPORT_PRICE_MICRO_USD_PER_MTOK_MAX);
      if (!price.ok) return skip(price.code, price.reason);
      if (!Number.isSafeInteger(tier.start) || tier.start < 0) return skip('invalid', `${field}.tiers start is not a token count`);
      steps.push({ start: tier.start, price: price.value });
    }
    tiered.set(kind, steps.sort((a, b) => a.start - b.start));
  }
  if (base.input === undefined || base.output === undefined) return skip('not_token_priced', 'no per-token input and output price');
  const version: VersionDraft = { model, variant: 'standard', prices: base, tiers: tiersOf(tiered), webSearch, requestFeePicoUsd, effectiveFrom };
  const zero = Object.values(base).every((p) => p === 0n) && version.tiers.length === 0 && webSearch === null && requestFeePicoUsd === null;
  return zero ? skip('zero_priced', 'every price is 0 (nothing is imported at 0)') : version;
}

/**
 * genai-prices tiers each key on its own: key K costs its last tier with start < prompt tokens.
 * A version's tier lists every price that differs from the base above its threshold, so at each
 * threshold of any key, every tiered key gets the price it has there (exact, not marginal).
 */
function tiersOf(tiered: ReadonlyMap<PriceKind, readonly { start: number; price: bigint }[]>): TierDraft[] {
  const thresholds = [...new Set([...tiered.values()].flatMap((steps) => steps.map((s) => s.start)))].sort((a, b) => a - b);
  return thresholds.map((threshold) => {
    const prices: CatalogKindPrices = {};
    for (const [kind, steps] of tiered) {
      const step = steps.filter((s) => s.start <= threshold).at(-1);
      if (step !== undefined) prices[kind] = step.price;
    }
    // genai-prices applies a tier when prompt tokens > start.
    return { aboveInputTokens: threshold, inclusive: false, prices };
  });
}

type NumberRead = { ok: true; value: bigint } | { ok: false; code: OmissionCode; reason: string };

/** Its shortest decimal text ("0.075", "1e-7"), exactly at `scale`. */
function readNumber(field: string, value: number, scale: number, max: bigint): NumberRead {
  const fail = (code: OmissionCode, reason: string): NumberRead => ({ ok: false, code, reason: `${field} ${reason}` });
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail('invalid', 'is not a finite number');
  // The bundled catalog holds JS numbers: String() gives the shortest text that reads back as the
  // same double, i.e. the decimal the catalog was written with; from there everything is exact.
  const text = String(value);
  let scaled: bigint;
  try {
    scaled = decimalTextToScaled(text, scale);
  } catch (error) {
    if (error instanceof DecimalTextError && error.problem === 'inexact') return fail('precision', `${text} needs more decimals than a price holds`);
    return fail('invalid', `${text} is not a decimal number`);
  }
  if (scaled < 0n) return fail('invalid', `${text} is negative`);
  if (scaled > max) return fail('invalid', `${text} is too large`);
  return { ok: true, value: scaled };
}

function dropped(model: string, field: string, code: OmissionCode, reason: string): DroppedField {
  return { model: model.slice(0, REASON_LENGTH_MAX), field, code, reason: reason.slice(0, REASON_LENGTH_MAX) };
}
