// What LiteLLM's search_context_cost_per_query means for each provider (pricing.md, "Importing
// catalogs"). The catalog writes one shape, {search_context_size_low|medium|high: USD}, for four
// different prices. Pure.
import type { WebSearchBilling } from './catalog-price-body.js';

export const SEARCH_CONTEXT_SIZES = ['low', 'medium', 'high'] as const;
export type SearchContextSize = (typeof SEARCH_CONTEXT_SIZES)[number];

export type SearchFeeMeaning =
  /** a fee per search tool call or grounding query (Anthropic, OpenAI tools, Gemini 3) */
  | { type: 'web_search'; billing: 'per_call'; defaultSize: SearchContextSize }
  /** a fee once per request that was grounded, however many queries it ran (Gemini 2.x) */
  | { type: 'web_search'; billing: 'per_request'; defaultSize: SearchContextSize }
  /** a fee on every request, by the request's search context size (Perplexity, *-search-preview) */
  | { type: 'request_fee'; defaultSize: SearchContextSize };

const ANTHROPIC_PROVIDERS = new Set(['anthropic', 'bedrock', 'bedrock_converse', 'vertex_ai-anthropic_models']);
const OPENAI_PROVIDERS = new Set(['openai', 'azure', 'text-completion-openai']);
const GEMINI_PROVIDERS = new Set(['gemini', 'vertex_ai', 'vertex_ai-language-models']);

/**
 * null: the provider's meaning is unknown, so the fee is dropped rather than guessed. The default
 * size is the one the provider applies when a request names none: OpenAI's web search defaults to
 * `medium`, Perplexity's to `low`; it prices the `standard` variant.
 */
export function searchFeeMeaning(input: { model: string; provider: string | undefined; billingUnit: string | undefined }): SearchFeeMeaning | null {
  const provider = input.provider ?? '';
  if (provider === 'perplexity') return { type: 'request_fee', defaultSize: 'low' };
  if (/search-preview/.test(input.model)) return { type: 'request_fee', defaultSize: 'medium' };
  if (ANTHROPIC_PROVIDERS.has(provider) || (provider === 'azure_ai' && /claude/.test(input.model))) {
    return { type: 'web_search', billing: 'per_call', defaultSize: 'medium' };
  }
  if (OPENAI_PROVIDERS.has(provider)) return { type: 'web_search', billing: 'per_call', defaultSize: 'medium' };
  if (GEMINI_PROVIDERS.has(provider)) {
    // LiteLLM marks the Gemini 3 entries with web_search_billing_unit "per_query" ($14 per 1,000
    // queries); the others are Gemini 2.x grounding ($35 per 1,000 grounded requests).
    const perQuery = input.billingUnit === 'per_query' || /gemini-3/.test(input.model);
    const billing: WebSearchBilling = perQuery ? 'per_call' : 'per_request';
    return { type: 'web_search', billing, defaultSize: 'medium' };
  }
  return null;
}
