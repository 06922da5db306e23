// Pure: turns a reassembled stream plus the query metadata into a usage-event payload.
import type { FieldIssue } from '../../common/errors/index.js';
import type { StreamDetails } from '../usage/usage-event.js';
import type { ReassembledStream, ReassembledUsage } from './reassembler-types.js';
import type { StreamFormat } from './stream-format.js';
import { STANDARD_VARIANT, billedVariant } from './stream-variant.js';
import { estimateCompletionTokens, type CompletionTokenInput, type TokenEstimate } from './token-estimator.js';

export interface StreamQuery {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model?: string;
  hold_id?: string;
  key_id?: string;
  occurred_at?: string;
  prompt_tokens?: number;
  /** The variant requested: a stream's service_tier may lower it, never raise it (stream-variant.ts). */
  price_variant?: string;
  /** The wire format; detected from the body when absent. */
  format?: StreamFormat;
}

export type StreamBillingPlan =
  | { ok: true; payload: Record<string, unknown>; details: StreamDetails }
  | { ok: false; issues: FieldIssue[]; message: string };

// Provider text kept in the stored stream details (jsonb): Postgres refuses NUL and lone UTF-16
// surrogates there, which a provider stream may carry ("\u0000" in a tool name was a 500). The
// completion is still billed; the text is only informational, so it is repaired, not refused.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const storable = (text: string) => text.replace(UNSTORABLE, '\uFFFD');
const storableOrNull = (text: string | null) => (text === null ? null : storable(text));

/** Nothing in the stream says a completion happened: no content, calls, finish or usage. */
function isEmpty(stream: ReassembledStream): boolean {
  return stream.content === '' && stream.tool_calls.length === 0 && stream.finish_reason === null && stream.usage === null;
}

/**
 * What planStreamBilling would estimate for this stream (no provider usage, a model and
 * prompt_tokens known), or null: lets a request handler count it off the hot loop first
 * (estimateCompletionTokensYielding) and pass the result in.
 */
export function estimateInputOf(stream: ReassembledStream, query: StreamQuery): CompletionTokenInput | null {
  const model = query.model ?? stream.model;
  if (stream.usage || !model || query.prompt_tokens === undefined || isEmpty(stream)) return null;
  return { model, content: stream.content, toolCalls: stream.tool_calls.map((c) => ({ name: c.name, arguments_raw: c.arguments_raw })) };
}

export function planStreamBilling(stream: ReassembledStream, query: StreamQuery, bodySha256: string, estimated?: TokenEstimate): StreamBillingPlan {
  if (isEmpty(stream)) {
    const why = stream.error ? `stream error: ${stream.error.message}` : `the body carries no ${stream.format ?? 'completion'} output, finish or usage`;
    return { ok: false, message: 'nothing to bill in this stream', issues: [{ field: '(body)', message: why }] };
  }
  const model = query.model ?? stream.model;
  if (!model) return { ok: false, message: 'model unknown', issues: [{ field: 'model', message: 'not in the query and not in the chunks' }] };

  let usage: Record<string, number>;
  let usageSource: StreamDetails['usage_source'];
  if (stream.usage) {
    usageSource = 'provider';
    usage = providerUsagePayload(stream.usage);
  } else {
    if (query.prompt_tokens === undefined) {
      return { ok: false, message: 'stream has no usage', issues: [{ field: 'prompt_tokens', message: 'required when the stream carries no usage' }] };
    }
    usageSource = 'estimated';
    const estimate =
      estimated ??
      estimateCompletionTokens({
        model,
        content: stream.content,
        toolCalls: stream.tool_calls.map((c) => ({ name: c.name, arguments_raw: c.arguments_raw })),
      });
    usage = { prompt_tokens: query.prompt_tokens, completion_tokens: estimate.tokens, cached_tokens: 0, reasoning_tokens: 0 };
  }
  const details: StreamDetails = {
    finish_reason: storableOrNull(stream.finish_reason),
    error: stream.error ? { code: storableOrNull(stream.error.code), message: storable(stream.error.message) } : null,
    truncated: stream.truncated,
    usage_source: usageSource,
    content_length: [...stream.content].length,
    // Only whether arguments were valid: the arguments themselves may hold user data.
    tool_calls: stream.tool_calls.map((c) => ({ index: c.index, id: storable(c.id), name: storable(c.name), arguments_valid: !c.arguments_error })),
    body_sha256: bodySha256,
  };
  if (stream.format !== null) details.format = stream.format;
  const { variant, claimed } = billedVariant(query.price_variant, stream.service_tier);
  if (claimed !== null) {
    details.variant_claimed = true;
    details.claimed_variant = storable(claimed);
  }
  const payload: Record<string, unknown> = {
    event_id: query.event_id,
    user_id: query.user_id,
    contributor_id: query.contributor_id,
    model,
    usage,
  };
  // Absent means standard (api.md): only another variant is written, so the payload of a standard
  // stream (and its idempotency fingerprint) is what it was before variants existed.
  if (variant !== STANDARD_VARIANT) payload.price_variant = variant;
  if (query.hold_id !== undefined) payload.hold_id = query.hold_id;
  if (query.key_id !== undefined) payload.key_id = query.key_id;
  if (query.occurred_at !== undefined) payload.occurred_at = query.occurred_at;
  return { ok: true, payload, details };
}

/**
 * The provider usage as the event's `usage` (api.md names): prompt, completion, cached and
 * reasoning always (absent = 0), every other kind only when non-zero. total_tokens is not part of
 * an event. Containment (pricing.md) is checked by the usage schema the payload goes through, so
 * inconsistent provider counts are a 400 naming the field, never billed as something else.
 */
export function providerUsagePayload(usage: ReassembledUsage): Record<string, number> {
  const { total_tokens: _total, ...kinds } = usage;
  return { ...kinds, cached_tokens: usage.cached_tokens ?? 0, reasoning_tokens: usage.reasoning_tokens ?? 0 };
}
