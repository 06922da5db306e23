// The admin usage explorer's query strings and answers (api.md "Usage events": the listing with
// every filter, its CSV, and the summary).
import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { idSchema, modelSchema, timestampSchema } from '../../common/validation/fields.js';

export const EXPLORER_PAGE_DEFAULT = 100;
export const EXPLORER_PAGE_MAX = 500;

/** from (inclusive) and to (exclusive) on occurred_at: a 400 when they select nothing by construction. */
function rangeInOrder(query: { from?: string; to?: string }, ctx: z.RefinementCtx): void {
  if (query.from !== undefined && query.to !== undefined && new Date(query.from) >= new Date(query.to)) {
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  }
}

const filterFields = {
  user_id: idSchema.optional(),
  contributor_id: idSchema.optional(),
  model: modelSchema.optional(),
  from: timestampSchema.optional().describe('occurred_at from (inclusive), RFC 3339'),
  to: timestampSchema.optional().describe('occurred_at before (exclusive), RFC 3339'),
};

export const usageEventsQuerySchema = z
  .object({
    ...filterFields,
    key_id: idSchema.optional(),
    status: z.enum(['priced', 'unpriced']).optional(),
    limit: z.coerce.number().int().min(1).max(EXPLORER_PAGE_MAX).default(EXPLORER_PAGE_DEFAULT),
    cursor: z.string().max(200).optional(),
  })
  .strict()
  .superRefine(rangeInOrder);
export class UsageEventsQueryDto extends createZodDto(usageEventsQuerySchema) {}
export type UsageEventsQuery = z.output<typeof usageEventsQuerySchema>;

export const SUMMARY_GROUPS = ['day', 'model', 'user', 'contributor', 'key'] as const;
export type SummaryGroup = (typeof SUMMARY_GROUPS)[number];

export const usageSummaryQuerySchema = z
  .object({ ...filterFields, key_id: idSchema.optional(), group_by: z.enum(SUMMARY_GROUPS) })
  .strict()
  .superRefine(rangeInOrder);
export class UsageSummaryQueryDto extends createZodDto(usageSummaryQuerySchema) {}
export type UsageSummaryQuery = z.output<typeof usageSummaryQuerySchema>;

const usd = z.string().describe('decimal USD, exact');

export const explorerEventSchema = z.object({
  event_id: z.string(),
  status: z.enum(['priced', 'unpriced']),
  model: z.string(),
  price_variant: z.string(),
  user_id: z.string(),
  contributor_id: z.string(),
  key_id: z.string().nullable(),
  occurred_at: z.string(),
  received_at: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), cached_tokens: z.number().int(), reasoning_tokens: z.number().int() }),
  hold_id: z.string().nullable(),
  official_usd: usd.nullable(),
  charge_usd: usd.nullable(),
  payout_usd: usd.nullable(),
  margin_usd: usd.nullable(),
  contributor_tier: z.string().nullable(),
  price_id: z.string().nullable(),
});
export const usageEventsPageSchema = z.object({ data: z.array(explorerEventSchema), next_cursor: z.string().nullable() });
export class UsageEventsPageDto extends createZodDto(usageEventsPageSchema) {}

const summarySums = {
  events: z.number().int().describe('priced events'),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  official_usd: usd,
  charge_usd: usd,
  payout_usd: usd,
  margin_usd: usd,
};
export const usageSummarySchema = z.object({
  group_by: z.enum(SUMMARY_GROUPS),
  data: z.array(z.object({ key: z.string().nullable().describe('the day (YYYY-MM-DD, UTC), model, user, contributor or key id; null: events without a key_id'), ...summarySums })),
  totals: z.object(summarySums),
});
export class UsageSummaryDto extends createZodDto(usageSummarySchema) {}
