// The fees of a LiteLLM entry: input_cost_per_request, web_search_cost_per_request and
// search_context_cost_per_query read by the provider's meaning (litellm-search-fees.ts). Pure.
import type { OmissionCode, WebSearchBilling } from './catalog-price-body.js';
import { readFee } from './litellm-fields.js';
import { drop, isPlainObject, type EntryFields } from './litellm-entry-fields.js';
import { SEARCH_CONTEXT_SIZES, searchFeeMeaning, type SearchContextSize } from './litellm-search-fees.js';

interface Fees {
  webSearch: { feePicoUsd: bigint; billing: WebSearchBilling } | null;
  requestFeePicoUsd: bigint | null;
}

export type SearchFeePlan =
  | { type: 'ok'; standard: Fees; bySize: (Fees & { variant: SearchContextSize })[] }
  | { type: 'failure'; code: OmissionCode; reason: string };

export function planSearchFees(fields: EntryFields): SearchFeePlan {
  const special = fields.special;
  let requestFee: bigint | null = null;
  if (special.input_cost_per_request !== undefined) {
    const read = readFee('input_cost_per_request', special.input_cost_per_request);
    if (!read.ok) return { type: 'failure', code: read.code, reason: read.reason };
    if (read.value === 0n) drop(fields, 'input_cost_per_request', 'zero_priced', '0 is taken as no request fee');
    else requestFee = read.value;
  }
  let webSearch: Fees['webSearch'] = null;
  if (special.web_search_cost_per_request !== undefined) {
    const read = readFee('web_search_cost_per_request', special.web_search_cost_per_request);
    if (!read.ok) return { type: 'failure', code: read.code, reason: read.reason };
    if (read.value === 0n) drop(fields, 'web_search_cost_per_request', 'zero_priced', '0 is taken as no search fee');
    else webSearch = { feePicoUsd: read.value, billing: 'per_request' };
  }
  const standard: Fees = { webSearch, requestFeePicoUsd: requestFee };
  const billingUnit = typeof special.web_search_billing_unit === 'string' ? special.web_search_billing_unit : undefined;
  if (special.web_search_billing_unit !== undefined && (billingUnit !== 'per_query' || special.search_context_cost_per_query === undefined)) {
    drop(fields, 'web_search_billing_unit', 'unknown_field', 'only "per_query" beside search_context_cost_per_query is known');
  }
  if (special.search_context_cost_per_query === undefined) return { type: 'ok', standard, bySize: [] };

  const sizes = readSizes(special.search_context_cost_per_query);
  if ('code' in sizes) return { type: 'failure', code: sizes.code, reason: sizes.reason };
  if (SEARCH_CONTEXT_SIZES.every((size) => sizes[size] === 0n)) {
    drop(fields, 'search_context_cost_per_query', 'zero_priced', '0 is taken as no search fee');
    return { type: 'ok', standard, bySize: [] };
  }
  const meaning = searchFeeMeaning({ model: fields.model, provider: fields.provider, billingUnit });
  if (meaning === null) {
    drop(fields, 'search_context_cost_per_query', 'unknown_field', `no known meaning for provider "${fields.provider ?? '(none)'}"`);
    return { type: 'ok', standard, bySize: [] };
  }
  if (meaning.type === 'request_fee') {
    const withFee = (size: SearchContextSize): Fees => ({ webSearch, requestFeePicoUsd: (requestFee ?? 0n) + sizes[size] });
    return { type: 'ok', standard: withFee(meaning.defaultSize), bySize: SEARCH_CONTEXT_SIZES.map((size) => ({ variant: size, ...withFee(size) })) };
  }
  if (webSearch !== null) {
    drop(fields, 'web_search_cost_per_request', 'invalid', 'beside search_context_cost_per_query, which is used');
  }
  const withSearch = (size: SearchContextSize): Fees => ({ webSearch: { feePicoUsd: sizes[size], billing: meaning.billing }, requestFeePicoUsd: requestFee });
  const sizesDiffer = new Set(SEARCH_CONTEXT_SIZES.map((size) => sizes[size])).size > 1;
  return {
    type: 'ok',
    standard: withSearch(meaning.defaultSize),
    bySize: sizesDiffer ? SEARCH_CONTEXT_SIZES.map((size) => ({ variant: size, ...withSearch(size) })) : [],
  };
}

function readSizes(value: unknown): Record<SearchContextSize, bigint> | { code: OmissionCode; reason: string } {
  const field = 'search_context_cost_per_query';
  if (!isPlainObject(value)) return { code: 'invalid', reason: `${field} is not an object` };
  const expected = SEARCH_CONTEXT_SIZES.map((size) => `search_context_size_${size}`);
  const keys = Object.keys(value).sort();
  if (keys.length !== expected.length || !expected.every((key) => keys.includes(key))) {
    return { code: 'invalid', reason: `${field} must have exactly ${expected.join(', ')}` };
  }
  const sizes = {} as Record<SearchContextSize, bigint>;
  for (const size of SEARCH_CONTEXT_SIZES) {
    const read = readFee(`${field}.search_context_size_${size}`, value[`search_context_size_${size}`]);
    if (!read.ok) return { code: read.code, reason: read.reason };
    sizes[size] = read.value;
  }
  return sizes;
}
