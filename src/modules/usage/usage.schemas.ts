import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { jsonBodyProblem } from '../../common/http/json-body-checks.js';
import { usageContainmentProblem } from '../pricing/pricing-math.js';
import { priceVariantSchema } from '../pricing/pricing.schemas.js';
import type { TokenUsage } from '../pricing/pricing.types.js';
import { externalIdSchema, idSchema, modelSchema, timestampSchema, tokenCountSchema } from '../../common/validation/fields.js';

export const BATCH_EVENTS_MAX = 1000;
export const METADATA_BYTES_MAX = 4096;

/** The usage kinds after the first four, in usageSchema's order (the per-row kinds array of the write follows it too). */
export const USAGE_KINDS_AFTER_FIRST_FOUR = [
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'prompt_audio_tokens',
  'cached_audio_tokens',
  'prompt_image_tokens',
  'completion_audio_tokens',
  'completion_image_tokens',
  'web_search_calls',
] as const;

/**
 * Every usage kind of docs/pricing.md (absent = 0) with its containment rules: a violation is a
 * 400 naming the part that does not fit (usageContainmentProblem).
 */
export const usageSchema = z
  .object({
    prompt_tokens: tokenCountSchema,
    completion_tokens: tokenCountSchema,
    cached_tokens: tokenCountSchema.default(0),
    reasoning_tokens: tokenCountSchema.default(0),
    cache_write_5m_tokens: tokenCountSchema.optional(),
    cache_write_1h_tokens: tokenCountSchema.optional(),
    prompt_audio_tokens: tokenCountSchema.optional(),
    cached_audio_tokens: tokenCountSchema.optional(),
    prompt_image_tokens: tokenCountSchema.optional(),
    completion_audio_tokens: tokenCountSchema.optional(),
    completion_image_tokens: tokenCountSchema.optional(),
    web_search_calls: tokenCountSchema.optional(),
  })
  .strict()
  .superRefine((usage, ctx) => {
    const problem = usageContainmentProblem(tokenUsageOf(usage));
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
  });

export type UsageInput = z.output<typeof usageSchema>;

/** The wire usage (snake_case, optional kinds) as the pricing module's TokenUsage (every kind, 0 when absent). */
export function tokenUsageOf(u: UsageInput): TokenUsage {
  return {
    promptTokens: u.prompt_tokens,
    completionTokens: u.completion_tokens,
    cachedTokens: u.cached_tokens,
    reasoningTokens: u.reasoning_tokens,
    cacheWrite5mTokens: u.cache_write_5m_tokens ?? 0,
    cacheWrite1hTokens: u.cache_write_1h_tokens ?? 0,
    promptAudioTokens: u.prompt_audio_tokens ?? 0,
    cachedAudioTokens: u.cached_audio_tokens ?? 0,
    promptImageTokens: u.prompt_image_tokens ?? 0,
    completionAudioTokens: u.completion_audio_tokens ?? 0,
    completionImageTokens: u.completion_image_tokens ?? 0,
    webSearchCalls: u.web_search_calls ?? 0,
  };
}

const metadataRecordSchema = z.record(z.string().max(100), z.unknown());

/**
 * A JSON object, kept exactly as parsed. z.record rebuilds the object and a key "__proto__" (an own
 * key after JSON.parse) does not survive the rebuild: it was dropped from what was stored and
 * hashed, so a payload differing only there replayed as 200 instead of 409. So the record schema
 * only checks, and the parsed object itself is the output (documented as an object).
 */
const metadataSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    const shape = metadataRecordSchema.safeParse(value);
    if (!shape.success) {
      for (const issue of shape.error.issues) ctx.addIssue({ ...issue } as never);
      return;
    }
    // Nesting first: JSON.stringify recurses and overflowed the stack on metadata 10,000 levels deep
    // (a 500). Also refuses text Postgres cannot store, for queue jobs as for REST bodies.
    const problem = jsonBodyProblem(value);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `metadata ${problem.message}` });
      return;
    }
    if (Buffer.byteLength(JSON.stringify(value), 'utf8') > METADATA_BYTES_MAX) {
      ctx.addIssue({ code: 'custom', message: `metadata must be at most ${METADATA_BYTES_MAX} bytes of JSON` });
    }
  })
  .transform((value) => value as Record<string, unknown>)
  .meta({ type: 'object', additionalProperties: {}, description: `a JSON object (keys at most 100 characters), at most ${METADATA_BYTES_MAX} bytes of JSON, nesting at most 64` });

export const usageEventSchema = z
  .object({
    event_id: externalIdSchema,
    user_id: idSchema,
    contributor_id: idSchema,
    model: modelSchema,
    occurred_at: timestampSchema.optional(),
    /** Absent = "standard"; an event of a variant without a version in force is unpriced. */
    price_variant: priceVariantSchema.optional(),
    usage: usageSchema,
    hold_id: externalIdSchema.optional(),
    /** The end user's API key at the gateway: budgets and reports can be per key. */
    key_id: externalIdSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();

export type UsageEventInput = z.output<typeof usageEventSchema>;

export const usageBatchSchema = z
  .object({ events: z.array(z.unknown()).min(1).max(BATCH_EVENTS_MAX, `at most ${BATCH_EVENTS_MAX} events per batch`) })
  .strict();

export class UsageEventDto extends createZodDto(usageEventSchema) {}
/** The batch body as the pipe checks it: each event is validated on its own (a bad one is rejected, not the batch). */
export class UsageBatchBodyDto extends createZodDto(usageBatchSchema) {}
export class UsageBatchDto extends createZodDto(z.object({ events: z.array(usageEventSchema).max(BATCH_EVENTS_MAX) })) {}

export const repriceResponseSchema = z.object({
  priced: z.number().int().describe('events this call priced'),
  still_unpriced: z.number().int().describe('unpriced events left when the call answered'),
  in_progress: z.boolean().describe('another reprice was running: this call priced nothing, that run is pricing them'),
});
export class RepriceResponseDto extends createZodDto(repriceResponseSchema) {}

export const unpricedByModelResponseSchema = z.object({
  data: z.array(z.object({ model: z.string(), events: z.number().int(), first_occurred_at: z.string(), last_occurred_at: z.string() })),
});
export class UnpricedByModelResponseDto extends createZodDto(unpricedByModelResponseSchema) {}
