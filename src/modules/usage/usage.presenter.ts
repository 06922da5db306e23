import { formatAttoAsUsd } from '../../common/money/index.js';
import type { StoredEvent } from './usage.types.js';

const usd = (atto: bigint | null) => (atto === null ? null : formatAttoAsUsd(atto));

// Date#toISOString is a runtime call (~1 us each under load, three per reply): a priced event's
// priced_at is its received_at, which its group shares, and occurred_at is often that instant too.
// One remembered millisecond; an invalid Date (NaN) never matches, so it still throws.
let isoMs = Number.NaN;
let isoText = '';
function iso(date: Date): string {
  const ms = date.getTime();
  if (ms !== isoMs) {
    isoText = date.toISOString();
    isoMs = ms;
  }
  return isoText;
}

/**
 * The api.md body of a usage event (priced or unpriced), plus extra detail fields. The fields
 * after hold_id are added onto the base object rather than both spread into a new one: this is
 * every ingestion reply, and the spread copied the base key by key (3% of the API's CPU under
 * single-event load). Key order is unchanged (usage.presenter.spec.ts).
 */
export function usageEventBody(event: StoredEvent) {
  const base = {
    event_id: event.eventId,
    status: event.status,
    model: event.model,
    price_variant: event.priceVariant,
    user_id: event.userId,
    contributor_id: event.contributorId,
    occurred_at: iso(event.occurredAt),
    usage: {
      prompt_tokens: event.promptTokens,
      completion_tokens: event.completionTokens,
      cached_tokens: event.cachedTokens,
      reasoning_tokens: event.reasoningTokens,
    },
    hold_id: event.holdId,
    key_id: event.keyId,
  };
  if (event.status === 'unpriced') return Object.assign(base, { received_at: iso(event.receivedAt) });
  return Object.assign(base, {
    official_usd: usd(event.officialAtto),
    charge_usd: usd(event.chargeAtto),
    payout_usd: usd(event.payoutAtto),
    margin_usd: usd(event.marginAtto),
    contributor_tier: event.contributorTier,
    price_id: event.priceId?.toString() ?? null,
    user_markup: event.userMarkup,
    payout_multiplier: event.payoutMultiplier,
    priced_at: event.pricedAt ? iso(event.pricedAt) : null,
    received_at: iso(event.receivedAt),
  });
}

/** Every usage count the event was billed on (pricing.md), absent kinds as 0. */
export function usageKindsBody(event: StoredEvent) {
  return {
    prompt_tokens: event.promptTokens,
    completion_tokens: event.completionTokens,
    cached_tokens: event.cachedTokens,
    reasoning_tokens: event.reasoningTokens,
    cache_write_5m_tokens: event.cacheWrite5mTokens,
    cache_write_1h_tokens: event.cacheWrite1hTokens,
    prompt_audio_tokens: event.promptAudioTokens,
    cached_audio_tokens: event.cachedAudioTokens,
    prompt_image_tokens: event.promptImageTokens,
    completion_audio_tokens: event.completionAudioTokens,
    completion_image_tokens: event.completionImageTokens,
    web_search_calls: event.webSearchCalls,
  };
}

/** GET /v1/usage-events/:event_id: the event with what it was billed from (every kind, variant, price version). */
export function usageEventDetailBody(event: StoredEvent) {
  const body = { ...usageEventBody(event), usage: usageKindsBody(event), stream: event.stream, metadata: event.metadata, source: event.source };
  // LiteLLM's own float cost estimate of the call, kept beside the event for comparison (never billed).
  const litellmCost = event.metadata?.litellm_response_cost_usd;
  return typeof litellmCost === 'string' ? { ...body, litellm_response_cost_usd: litellmCost } : body;
}

/** in_progress: another reprice was running, so this call priced nothing (its figures are that run's to give). */
export function repriceBody(result: { priced: number; stillUnpriced: number; inProgress: boolean }) {
  return { priced: result.priced, still_unpriced: result.stillUnpriced, in_progress: result.inProgress };
}
