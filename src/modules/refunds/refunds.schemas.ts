import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { pageQuerySchema } from '../../common/http/pagination.js';
import { externalIdSchema, idSchema, usdAmountSchema } from '../../common/validation/fields.js';

export const REFUND_REASON_LENGTH_MAX = 500;

export const refundBodySchema = z
  .object({
    refund_id: externalIdSchema.describe('Idempotency key of this refund part'),
    amount_usd: usdAmountSchema()
      .refine((atto) => atto > 0n, 'must be greater than zero')
      .optional()
      .describe('USD decimal string; default: everything not refunded yet'),
    reason: z.string().trim().min(1, 'required').max(REFUND_REASON_LENGTH_MAX),
  })
  .strict();
export class RefundBodyDto extends createZodDto(refundBodySchema) {}

export class RefundEventParamDto extends createZodDto(z.object({ event_id: externalIdSchema }).strict()) {}

export const refundListQuerySchema = pageQuerySchema
  .extend({ event_id: externalIdSchema.optional(), contributor_id: idSchema.optional(), user_id: idSchema.optional() })
  .strict();
export class RefundListQueryDto extends createZodDto(refundListQuerySchema) {}

const usd = z.string();
export const refundResponseSchema = z.object({
  refund_id: z.string(),
  event_id: z.string(),
  user_id: z.string(),
  contributor_id: z.string(),
  model: z.string(),
  amount_usd: usd.describe('Credited back to the user by this part'),
  contributor_clawback_usd: usd.describe("Taken back from the contributor's payable by this part (may take it below zero)"),
  margin_reversed_usd: usd,
  refunded_total_usd: usd.describe('All parts of this event so far'),
  clawed_back_total_usd: usd.describe('floor(refunded_total x payout / charge)'),
  reason: z.string(),
  journal_entry_id: z.string(),
  created_at: z.string(),
});
export class RefundResponseDto extends createZodDto(refundResponseSchema) {}

export const refundListResponseSchema = z.object({ data: z.array(refundResponseSchema), next_cursor: z.string().nullable() });
export class RefundListResponseDto extends createZodDto(refundListResponseSchema) {}
