import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';

export const REVIEW_REASON_LENGTH_MAX = 500;
const ratio = z.string().describe('reported / counted completion tokens, a decimal string');

export const usageAuditRowSchema = z.object({
  contributor_id: z.string(),
  model: z.string(),
  events: z.number().int().nonnegative().describe('audited events counted (after the last clear)'),
  median_ratio: ratio,
  model_median_ratio: ratio.nullable().describe("median of the model's other contributors' medians; null when there are none yet"),
  flagged: z.boolean(),
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
