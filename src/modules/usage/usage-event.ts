// A usage event after validation: normalized, hashed for idempotency. Pure.
import { createHash } from 'node:crypto';
import type { TokenUsage } from '../pricing/pricing.types.js';
import type { UsageEventInput } from './usage.schemas.js';

export interface StreamDetails {
  finish_reason: string | null;
  error: { code: string | null; message: string } | null;
  truncated: boolean;
  usage_source: 'provider' | 'estimated';
  content_length: number;
  tool_calls: Array<{ index: number; id: string; name: string; arguments_valid: boolean }>;
  body_sha256: string;
}

export interface NormalizedEvent {
  eventId: string;
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  usage: TokenUsage;
  holdId: string | null;
  metadata: Record<string, unknown> | null;
  source: 'api' | 'batch' | 'stream' | 'queue';
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

export function normalizeEvent(
  input: UsageEventInput,
  options: { now: Date; source: NormalizedEvent['source']; stream?: StreamDetails | null },
): NormalizedEvent {
  // occurred_at defaults to now, but only what the gateway sent is hashed: a replay without it
  // must still match the original.
  const givenOccurredAt = input.occurred_at === undefined ? null : new Date(input.occurred_at).toISOString();
  const usage: TokenUsage = {
    promptTokens: input.usage.prompt_tokens,
    completionTokens: input.usage.completion_tokens,
    cachedTokens: input.usage.cached_tokens,
    reasoningTokens: input.usage.reasoning_tokens,
  };
  const hashed = {
    event_id: input.event_id,
    user_id: input.user_id,
    contributor_id: input.contributor_id,
    model: input.model,
    occurred_at: givenOccurredAt,
    usage: input.usage,
    hold_id: input.hold_id ?? null,
    metadata: input.metadata ?? null,
    stream_sha256: options.stream?.body_sha256 ?? null,
  };
  return {
    eventId: input.event_id,
    userId: input.user_id,
    contributorId: input.contributor_id,
    model: input.model,
    occurredAt: givenOccurredAt === null ? options.now : new Date(givenOccurredAt),
    usage,
    holdId: input.hold_id ?? null,
    metadata: input.metadata ?? null,
    source: options.source,
    stream: options.stream ?? null,
    requestHash: createHash('sha256').update(canonicalJson(hashed)).digest('hex'),
  };
}
