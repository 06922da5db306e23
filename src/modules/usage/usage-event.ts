// A usage event after validation: normalized, hashed for idempotency. Pure.
import { hash } from 'node:crypto';
import { DEFAULT_PRICE_VARIANT, type TokenUsage } from '../pricing/pricing.types.js';
import { tokenUsageOf, type UsageEventInput } from './usage.schemas.js';

export interface StreamDetails {
  finish_reason: string | null;
  error: { code: string | null; message: string } | null;
  truncated: boolean;
  usage_source: 'provider' | 'estimated';
  content_length: number;
  tool_calls: Array<{ index: number; id: string; name: string; arguments_valid: boolean }>;
  body_sha256: string;
  /** The wire format (streams and response bodies since #33; absent on older events). */
  format?: string;
  /** The upstream named a variant dearer than the one requested: it was not billed (api.md "Contributor trust"). */
  variant_claimed?: boolean;
  /** That variant, when variant_claimed. */
  claimed_variant?: string;
}

export interface NormalizedEvent {
  eventId: string;
  userId: string;
  contributorId: string;
  model: string;
  /** The price variant the event is billed at ("standard" unless the gateway named one). */
  priceVariant: string;
  occurredAt: Date;
  usage: TokenUsage;
  holdId: string | null;
  /** The end user's key at the gateway (budgets per key), or null. */
  keyId: string | null;
  metadata: Record<string, unknown> | null;
  source: 'api' | 'batch' | 'stream' | 'queue' | 'litellm';
  stream: StreamDetails | null;
  /** sha256 of the canonical payload as sent: the same event_id with another hash is a conflict. */
  requestHash: string;
}

/** JSON with sorted keys, so the same payload always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * canonicalJson of the hashed payload of an event, written out directly: its key set is fixed, so
 * the keys are emitted already sorted and only metadata goes through the generic canonicalJson.
 * Byte-identical to canonicalJson(hashedPayload(...)) (property-tested): stored request hashes
 * must keep matching replays.
 */
export function canonicalEventPayload(input: UsageEventInput, occurredAt: string | null, streamSha256: string | null): string {
  const u = input.usage;
  // Keys in sorted order; the kinds added after the first four, and price_variant, only when sent
  // (as canonicalJson drops undefined), so hashes of events stored before them are unchanged.
  return (
    `{"contributor_id":${JSON.stringify(input.contributor_id)},"event_id":${JSON.stringify(input.event_id)}` +
    `,"hold_id":${input.hold_id == null ? 'null' : JSON.stringify(input.hold_id)}` +
    // Only when sent (as canonicalJson drops undefined): hashes of events without it are unchanged.
    (input.key_id === undefined ? '' : `,"key_id":${JSON.stringify(input.key_id)}`) +
    `,"metadata":${input.metadata == null ? 'null' : canonicalJson(input.metadata)}` +
    `,"model":${JSON.stringify(input.model)},"occurred_at":${occurredAt === null ? 'null' : JSON.stringify(occurredAt)}` +
    (input.price_variant === undefined ? '' : `,"price_variant":${JSON.stringify(input.price_variant)}`) +
    `,"stream_sha256":${streamSha256 === null ? 'null' : JSON.stringify(streamSha256)}` +
    `,"usage":{` +
    optionalCount('cache_write_1h_tokens', u.cache_write_1h_tokens) +
    optionalCount('cache_write_5m_tokens', u.cache_write_5m_tokens) +
    optionalCount('cached_audio_tokens', u.cached_audio_tokens) +
    `"cached_tokens":${jsonNumber(u.cached_tokens)},` +
    optionalCount('completion_audio_tokens', u.completion_audio_tokens) +
    optionalCount('completion_image_tokens', u.completion_image_tokens) +
    `"completion_tokens":${jsonNumber(u.completion_tokens)},` +
    optionalCount('prompt_audio_tokens', u.prompt_audio_tokens) +
    optionalCount('prompt_image_tokens', u.prompt_image_tokens) +
    `"prompt_tokens":${jsonNumber(u.prompt_tokens)},"reasoning_tokens":${jsonNumber(u.reasoning_tokens)}` +
    (u.web_search_calls === undefined ? '' : `,"web_search_calls":${jsonNumber(u.web_search_calls)}`) +
    `},"user_id":${JSON.stringify(input.user_id)}}`
  );
}

/** `"key":n,` when the count was sent, '' otherwise. */
function optionalCount(key: string, n: number | undefined): string {
  return n === undefined ? '' : `"${key}":${jsonNumber(n)},`;
}

/** JSON.stringify of a number, without its generic dispatch. */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}

/** What the request hash covers: what the gateway sent (occurred_at only if given). */
export function hashedPayload(input: UsageEventInput, occurredAt: string | null, streamSha256: string | null) {
  return {
    event_id: input.event_id,
    user_id: input.user_id,
    contributor_id: input.contributor_id,
    model: input.model,
    occurred_at: occurredAt,
    price_variant: input.price_variant,
    usage: input.usage,
    hold_id: input.hold_id ?? null,
    key_id: input.key_id,
    metadata: input.metadata ?? null,
    stream_sha256: streamSha256,
  };
}

export function normalizeEvent(
  input: UsageEventInput,
  options: {
    now: Date;
    source: NormalizedEvent['source'];
    stream?: StreamDetails | null;
    /** input.occurred_at already read, given only when that text is this instant's toISOString() (a ProvenUsageEvent's). */
    occurredAt?: Date;
  },
): NormalizedEvent {
  // occurred_at defaults to now, but only what the gateway sent is hashed: a replay without it
  // must still match the original.
  const read = options.occurredAt;
  const givenAt = input.occurred_at === undefined ? null : (read ?? new Date(input.occurred_at));
  // canonicalInstant of a text in toISOString's form is the text itself.
  const givenOccurredAt = input.occurred_at === undefined ? null : read !== undefined ? input.occurred_at : canonicalInstant(input.occurred_at);
  const stream = options.stream ?? null;
  const canonical = canonicalEventPayload(input, givenOccurredAt, stream?.body_sha256 ?? null);
  return {
    eventId: input.event_id,
    userId: input.user_id,
    contributorId: input.contributor_id,
    model: input.model,
    priceVariant: input.price_variant ?? DEFAULT_PRICE_VARIANT,
    occurredAt: occurredAtAsPriced(givenAt, options.now),
    usage: tokenUsageOf(input.usage),
    holdId: input.hold_id ?? null,
    keyId: input.key_id ?? null,
    metadata: input.metadata ?? null,
    source: options.source,
    stream,
    requestHash: hash('sha256', canonical, 'hex'),
  };
}

/**
 * The instant an event is stored and priced at. An occurred_at ahead of the server's clock (the
 * schema allows EVENT_OCCURRED_AT_FUTURE_SKEW_MS for gateway clocks that run fast) is taken as the
 * receipt time: the prices and tiers in force at a future instant are not known yet (a tier change
 * or a scheduled price may still land before it), so pricing it at once made two events of one
 * instant get different tiers and prices. At or before the receipt time they are settled.
 */
export function occurredAtAsPriced(given: Date | null, receivedAt: Date): Date {
  return given === null || given.getTime() > receivedAt.getTime() ? receivedAt : given;
}

/**
 * An RFC 3339 instant as hashed: toISOString() (UTC, milliseconds), with the sub-millisecond
 * digits the gateway sent appended when they are not zero ("...00.0001Z"), so two payloads that
 * differ below the millisecond are different payloads (a 409, not a replay) while a millisecond
 * timestamp hashes as it always did. Same instant, same text: offsets and trailing zeros do not
 * matter.
 */
export function canonicalInstant(text: string): string {
  const iso = new Date(text).toISOString();
  // Already in toISOString's form (what gateways and the LiteLLM mapping send): nothing to re-read.
  if (iso === text) return iso;
  const fraction = /^[^.]*T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(text)?.[1] ?? '';
  const subMillisecond = fraction.slice(3).replace(/0+$/, '');
  return subMillisecond === '' ? iso : `${iso.slice(0, -1)}${subMillisecond}Z`;
}
