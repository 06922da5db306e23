import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { GROUP_BY_VALUES } from './earnings-range.js';

// Dates are checked by resolveEarningsRange (day boundaries, order, range length); zod only
// bounds their size here so every failure names its field.
const dayBoundaryText = z.string().min(1).max(64);

export const earningsQuerySchema = z
  .object({
    from: dayBoundaryText.optional().describe('Inclusive UTC day: YYYY-MM-DD or an RFC 3339 timestamp at 00:00:00Z. Default: to - 30 days.'),
    to: dayBoundaryText.optional().describe('Exclusive UTC day: YYYY-MM-DD or an RFC 3339 timestamp at 00:00:00Z. Default: tomorrow (today included).'),
    group_by: z
      .enum(GROUP_BY_VALUES, { error: `must be one of ${GROUP_BY_VALUES.join(', ')}` })
      .default('day')
      .describe('day, model or day,model'),
  })
  .strict();
export class EarningsQueryDto extends createZodDto(earningsQuerySchema) {}

const usd = z.string().describe('USD, exact decimal string');
const sums = {
  events: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cached_tokens: z.number().int().describe('cache reads (part of prompt_tokens)'),
  cache_write_tokens: z.number().int().describe('cache writes, 5-minute and 1-hour (part of prompt_tokens)'),
  audio_tokens: z.number().int().describe('audio input and output tokens'),
  official_usd: usd,
  earned_usd: usd,
  refunds: z.number().int().describe('refund parts made that day (of events of any day)'),
  refunded_usd: usd.describe('returned to users by those refunds'),
  clawed_back_usd: usd.describe("clawed back from the contributor by those refunds"),
  net_earned_usd: usd.describe('earned - clawed back (may be negative)'),
};

export const earningsResponseSchema = z.object({
  contributor_id: z.string(),
  from: z.string(),
  to: z.string(),
  group_by: z.enum(GROUP_BY_VALUES),
  totals: z.object(sums),
  rows: z.array(z.object({ day: z.string().optional(), model: z.string().optional(), ...sums })),
});
export class EarningsResponseDto extends createZodDto(earningsResponseSchema) {}

export const contributorBalancesSchema = z.object({
  accrued_usd: usd,
  pending_usd: usd.describe('earned, not payable before occurred_at + PAYOUT_MATURITY_DAYS (0 unless set)'),
  payable_usd: usd,
  in_settlement_usd: usd,
  paid_usd: usd,
});

export const balanceResponseSchema = z.object({
  contributor_id: z.string(),
  tier: z.string(),
  ...contributorBalancesSchema.shape,
});
export class BalanceResponseDto extends createZodDto(balanceResponseSchema) {}
