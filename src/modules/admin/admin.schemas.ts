import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { MoneyFormatError } from '../../common/money/index.js';
import { pageQuerySchema } from '../../common/http/pagination.js';
import { externalIdSchema, parseRequestAmountAtto } from '../../common/validation/fields.js';
import { contributorBalancesSchema } from '../earnings/earnings.schemas.js';

export const CONTRIBUTOR_SORTS = ['id', 'payable_desc'] as const;
export const ADJUSTMENT_REASON_LENGTH_MAX = 500;

export const CONTRIBUTOR_SEARCH_LENGTH_MAX = 200;

export const contributorListQuerySchema = pageQuerySchema
  .extend({
    sort: z.enum(CONTRIBUTOR_SORTS, { error: `must be one of ${CONTRIBUTOR_SORTS.join(', ')}` }).default('id'),
    q: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(CONTRIBUTOR_SEARCH_LENGTH_MAX)
      .optional()
      .describe('Only contributors whose id or payout address contains this text (case-insensitive)'),
  })
  .strict();
export class ContributorListQueryDto extends createZodDto(contributorListQuerySchema) {}

export const auditLogQuerySchema = pageQuerySchema.strict();
export class AuditLogQueryDto extends createZodDto(auditLogQuerySchema) {}

/** Signed USD decimal string -> atto-USD; a JSON number is refused (it may already be rounded). */
const signedUsdAmount = z
  .string({ error: (issue) => (issue.input === undefined ? 'required' : 'money must be a decimal string, e.g. "-12.5"') })
  .describe('Signed USD decimal string; positive credits the contributor, negative debits')
  .transform((text, ctx): bigint => {
    try {
      const atto = parseRequestAmountAtto(text, { allowNegative: true });
      if (atto === 0n) ctx.addIssue({ code: 'custom', message: 'must not be zero' });
      return atto;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as MoneyFormatError).message });
      return z.NEVER;
    }
  });

export const adjustmentBodySchema = z
  .object({
    amount_usd: signedUsdAmount,
    reason: z.string().trim().min(1, 'required').max(ADJUSTMENT_REASON_LENGTH_MAX),
    reference: externalIdSchema.describe('Idempotency key: the same reference and payload replays, a different payload is a 409'),
  })
  .strict();
export class AdjustmentBodyDto extends createZodDto(adjustmentBodySchema) {}

const usd = z.string();

export const adjustmentResponseSchema = z.object({
  contributor_id: z.string(),
  reference: z.string(),
  amount_usd: usd,
  reason: z.string(),
  payable_usd: usd.describe('The payable balance right after this adjustment'),
  created_at: z.string(),
});
export class AdjustmentResponseDto extends createZodDto(adjustmentResponseSchema) {}

export const contributorListResponseSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      tier: z.string(),
      status: z.string(),
      payout_address: z.string(),
      balances: contributorBalancesSchema,
      debt_usd: usd.describe('What the contributor owes after clawbacks of paid earnings (-payable when payable < 0, else 0); netted by later earnings'),
    }),
  ),
  next_cursor: z.string().nullable(),
});
export class ContributorListResponseDto extends createZodDto(contributorListResponseSchema) {}

export const overviewResponseSchema = z.object({
  charged_usd: usd,
  revenue_usd: usd.describe('Margin kept: usage margin minus what refunds reversed (breakage not included)'),
  breakage_usd: usd.describe('What expired credit grants moved to platform revenue (breakage); platform revenue besides revenue_usd'),
  refunded_usd: usd.describe('Credited back to users by refunds'),
  users_balance_usd: usd.describe("Users' balances: purchased credit + what unexpired credit grants hold (as each user's balance_usd)"),
  granted_usd: usd.describe("The unexpired credit grants' part of users_balance_usd"),
  held_usd: usd,
  contributors_pending_usd: usd.describe('Earnings still maturing (PAYOUT_MATURITY_DAYS), not yet payable'),
  contributors_payable_usd: usd,
  in_settlement_usd: usd,
  paid_usd: usd,
  unpriced_events: z.number().int(),
  hot_wallet: z
    .object({ address: z.string(), usdc: z.string().nullable(), native: z.string().nullable(), error: z.string().optional() })
    .nullable()
    .describe('null when settlement is not configured; usdc/native null (with error) when the RPC cannot be read'),
  last_settlement: z
    .object({
      settlement_id: z.string(),
      status: z.string(),
      trigger: z.string(),
      payout_count: z.number().int(),
      total_usdc: z.string(),
      created_at: z.string(),
      completed_at: z.string().nullable(),
    })
    .nullable(),
});
export class OverviewResponseDto extends createZodDto(overviewResponseSchema) {}

export const overviewDailyQuerySchema = z
  .object({
    from: z.string().min(1).max(64).optional().describe('Inclusive UTC day (YYYY-MM-DD). Default: to - 30 days.'),
    to: z.string().min(1).max(64).optional().describe('Exclusive UTC day (YYYY-MM-DD). Default: tomorrow (today included).'),
  })
  .strict();
export class OverviewDailyQueryDto extends createZodDto(overviewDailyQuerySchema) {}

export const overviewDailyResponseSchema = z.object({
  from: z.string(),
  to: z.string(),
  rows: z.array(
    z.object({
      day: z.string().describe('UTC day, YYYY-MM-DD; every day of the range is present'),
      charged_usd: usd.describe('Charged to users for usage that occurred that day'),
      revenue_usd: usd.describe('Platform margin on that usage'),
      earned_usd: usd.describe('Contributor earnings on that usage'),
      paid_usd: usd.describe('Payout lines confirmed paid on chain that day (USDC = USD)'),
    }),
  ),
});
export class OverviewDailyResponseDto extends createZodDto(overviewDailyResponseSchema) {}

export const auditLogResponseSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      actor_id: z.string().nullable(),
      actor_role: z.string(),
      action: z.string(),
      target: z.string().nullable(),
      before: z.unknown(),
      after: z.unknown(),
      created_at: z.string(),
    }),
  ),
  next_cursor: z.string().nullable(),
});
export class AuditLogResponseDto extends createZodDto(auditLogResponseSchema) {}
