import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { AUDIT_RATIOS } from './usage-audit-stats.js';

export const REVIEW_REASON_LENGTH_MAX = 500;
const ratio = z.string().describe('reported / counted completion tokens, a decimal string');

export const usageAuditRowSchema = z.object({
  contributor_id: z.string(),
  model: z.string(),
  events: z.number().int().nonnegative().describe('audited events counted (after the last clear)'),
  median_ratio: ratio,
  model_median_ratio: ratio.nullable().describe("median of the model's other contributors' medians; null when there are none yet"),
  prompt: z
    .object({ events: z.number().int().nonnegative(), median_ratio: ratio.nullable(), model_median_ratio: ratio.nullable() })
    .describe("reported prompt tokens / the gateway's own count (the stream's prompt_tokens parameter), beside the completion ratio"),
  reasoning: z
    .object({ events: z.number().int().nonnegative(), median_ratio: ratio.nullable(), model_median_ratio: ratio.nullable() })
    .describe('hidden reasoning tokens / counted visible output tokens'),
  flagged: z.boolean().describe('flagged by any ratio'),
  flagged_ratios: z.array(z.enum(AUDIT_RATIOS)).describe('the ratios that flag it: completion, prompt, reasoning'),
  flagged_since: z.string().nullable(),
});
export const usageAuditResponseSchema = z.object({ data: z.array(usageAuditRowSchema) });
export class UsageAuditResponseDto extends createZodDto(usageAuditResponseSchema) {}

export const usageAuditQuerySchema = z
  .object({ flagged: z.enum(['true', 'false']).optional().describe('only flagged (true) or unflagged (false) rows') })
  .strict();
export class UsageAuditQueryDto extends createZodDto(usageAuditQuerySchema) {}

export const reviewSchema = z
  .object({
    decision: z.enum(['clear', 'suspend']),
    reason: z.string().trim().min(1, 'must not be empty').max(REVIEW_REASON_LENGTH_MAX),
  })
  .strict();
export class ReviewDto extends createZodDto(reviewSchema) {}

export const reviewResponseSchema = z.object({
  contributor_id: z.string(),
  decision: z.enum(['clear', 'suspend']),
  reason: z.string(),
  status: z.string().describe('the contributor status after the review'),
  reviewed_at: z.string(),
});
export class ReviewResponseDto extends createZodDto(reviewResponseSchema) {}
