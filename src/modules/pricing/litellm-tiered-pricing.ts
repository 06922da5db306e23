// LiteLLM's `tiered_pricing` ranges (Alibaba Qwen, Volcengine Doubao): [{range: [from, to], <per-token
// prices>}] where a request whose prompt falls in (from, to] pays that range's prices for the whole
// request. That is the base (the range from 0) plus a tier above each later `from` (pricing.md). Pure.
import type { CatalogKindPrices, OmissionCode, TierDraft } from './catalog-price-body.js';
import { isPlainObject } from './litellm-entry-fields.js';
import { parseKindField, readPerTokenPrice, readTokenCount } from './litellm-fields.js';

export const TIERED_RANGES_MAX = 32;

export type TieredPricing =
  | { type: 'ok'; base: CatalogKindPrices; tiers: TierDraft[]; dropped: { field: string; code: OmissionCode; reason: string }[] }
  /** ranges of another unit (search results per query): not a token price */
  | { type: 'not_token_priced' }
  | { type: 'failure'; code: OmissionCode; reason: string };

interface Range {
  from: number;
  to: number;
  prices: CatalogKindPrices;
}

export function readTieredPricing(value: unknown): TieredPricing {
  if (!Array.isArray(value) || value.length === 0 || value.length > TIERED_RANGES_MAX) {
    return failure('invalid', `tiered_pricing must be a list of 1..${TIERED_RANGES_MAX} ranges`);
  }
  if (value.every((range) => isPlainObject(range) && range.range === undefined && range.max_results_range !== undefined)) {
    return { type: 'not_token_priced' };
  }
  const dropped: { field: string; code: OmissionCode; reason: string }[] = [];
  const ranges: Range[] = [];
  for (const [index, item] of value.entries()) {
    const read = readRange(item, `tiered_pricing[${index}]`, dropped);
    if ('type' in read) return read;
    ranges.push(read);
  }
  ranges.sort((a, b) => a.from - b.from);
  const [first, ...rest] = ranges;
  if (first === undefined || first.from !== 0) return failure('invalid', 'tiered_pricing has no range starting at 0 tokens');
  for (const [index, range] of ranges.entries()) {
    const previous = ranges[index - 1];
    if (previous !== undefined && previous.to !== range.from) {
      return failure('invalid', `tiered_pricing ranges are not contiguous at ${previous.to}..${range.from} tokens`);
    }
  }
  const tiers = rest.map((range) => ({ aboveInputTokens: range.from, inclusive: false, prices: range.prices }));
  return { type: 'ok', base: first.prices, tiers, dropped };
}

function readRange(item: unknown, path: string, dropped: { field: string; code: OmissionCode; reason: string }[]): Range | TieredPricing {
  if (!isPlainObject(item)) return failure('invalid', `${path} is not an object`);
  const bounds = item.range;
  if (!Array.isArray(bounds) || bounds.length !== 2) return failure('invalid', `${path}.range must be [from, to] in tokens`);
  const from = readTokenCount(`${path}.range`, bounds[0]);
  const to = readTokenCount(`${path}.range`, bounds[1]);
  if (typeof from === 'string') return failure('invalid', from);
  if (typeof to === 'string') return failure('invalid', to);
  if (to <= from) return failure('invalid', `${path}.range must go up`);
  const prices: CatalogKindPrices = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === 'range') continue;
    const field = parseKindField(name);
    if (field === null || field.aboveInputTokens !== null || field.serviceTier !== null) {
      dropped.push({ field: `${path}.${name}`, code: 'unknown_field', reason: 'not a per-token price of a range' });
      continue;
    }
    const read = readPerTokenPrice(`${path}.${name}`, value);
    if (!read.ok) return failure(read.code, read.reason);
    if (read.value === 0n && field.kind !== 'input' && field.kind !== 'output') {
      dropped.push({ field: `${path}.${name}`, code: 'zero_priced', reason: '0 is taken as not listed, never as free' });
      continue;
    }
    prices[field.kind] = read.value;
  }
  if (prices.input === undefined || prices.output === undefined) return failure('invalid', `${path} has no per-token input and output price`);
  return { from, to, prices };
}

function failure(code: OmissionCode, reason: string): TieredPricing {
  return { type: 'failure', code, reason };
}
