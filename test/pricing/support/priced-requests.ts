// Requests that both pricing suites bill to the atto: price-dimensions at prices entered by hand
// through POST /v1/admin/prices, price-import at the imported LiteLLM catalog, which lists the same
// prices for these models. Written once, so the two suites cannot drift apart on what the same
// request costs. Each suite names the models its own way (provider-prefixed by hand, the catalog's
// keys on import) and adds the cases only it has.

/** An event of user u_42 billed to contributor c_std; `extra` adds or overrides fields (price_variant, occurred_at). */
export function usageEvent(id: string, model: string, usage: Record<string, number>, extra: Record<string, unknown> = {}) {
  return {
    event_id: id,
    user_id: 'u_42',
    contributor_id: 'c_std',
    model,
    occurred_at: '2026-11-29T10:00:00Z',
    usage,
    ...extra,
  };
}

/** Above Claude's 200k-token tier, with cache reads and 5m and 1h cache writes. */
export const LONG_CACHED_USAGE = { prompt_tokens: 250000, cached_tokens: 100000, cache_write_5m_tokens: 20000, cache_write_1h_tokens: 10000, completion_tokens: 2000 };

export type PricedRequestId = 'claude-long' | 'claude-search' | 'audio' | 'image' | 'sonar-high' | 'gpt5-flex' | 'qwen-mid';

/** A row of the suites' it.each: id (also the event id), model, usage, extra event fields, official USD. */
export type PricedRow = [id: string, model: string, usage: Record<string, number>, extra: Record<string, unknown>, officialUsd: string];

const PRICED_REQUESTS: Array<{ id: PricedRequestId; usage: Record<string, number>; extra: Record<string, unknown>; officialUsd: string }> = [
  // Claude Sonnet 4.5, 5m/1h cache writes above 200k: 120,000 x 6 + 100,000 x 0.6 + 20,000 x 7.5 + 10,000 x 12 + 2,000 x 22.5
  // (0.72 + 0.06 + 0.15 + 0.12 + 0.045).
  { id: 'claude-long', usage: LONG_CACHED_USAGE, extra: {}, officialUsd: '1.095' },
  // Claude with 3 web searches at $10 per 1,000: 10,000 x 3 + 500 x 15 + 3 x 0.01.
  { id: 'claude-search', usage: { prompt_tokens: 10000, completion_tokens: 500, web_search_calls: 3 }, extra: {}, officialUsd: '0.0675' },
  // gpt-4o-audio: 200 x 2.5 + 800 x 40 + 100 x 10 + 400 x 80.
  { id: 'audio', usage: { prompt_tokens: 1000, prompt_audio_tokens: 800, completion_tokens: 500, completion_audio_tokens: 400 }, extra: {}, officialUsd: '0.0655' },
  // Gemini image output: 500 x 0.3 + 10 x 2.5 + 1,290 x 30.
  { id: 'image', usage: { prompt_tokens: 500, completion_tokens: 1300, completion_image_tokens: 1290 }, extra: {}, officialUsd: '0.038875' },
  // Perplexity, high search context: 1,000 x 3 + 500 x 15 + 0.014 per request.
  { id: 'sonar-high', usage: { prompt_tokens: 1000, completion_tokens: 500 }, extra: { price_variant: 'high' }, officialUsd: '0.0245' },
  // gpt-5 flex: 10,000 x 0.625 + 10,000 x 0.0625 + 5,000 x 5.
  { id: 'gpt5-flex', usage: { prompt_tokens: 20000, cached_tokens: 10000, completion_tokens: 5000, reasoning_tokens: 4000 }, extra: { price_variant: 'flex' }, officialUsd: '0.031875' },
  // Qwen range tier (32k, 128k]: 32,001 x 2.4 + 1,000 x 12.
  { id: 'qwen-mid', usage: { prompt_tokens: 32001, completion_tokens: 1000 }, extra: {}, officialUsd: '0.0888024' },
];

/** The shared requests as it.each rows, with the suite's name for each model. */
export function pricedRows(modelOf: Record<PricedRequestId, string>): PricedRow[] {
  return PRICED_REQUESTS.map((r) => [r.id, modelOf[r.id], r.usage, r.extra, r.officialUsd]);
}
