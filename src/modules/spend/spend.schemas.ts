import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { externalIdSchema, idSchema, modelSchema, timestampSchema, usdAmountSchema } from '../../common/validation/fields.js';
import { BUDGET_PERIODS } from './budget-periods.js';

/** An alert threshold: a fraction of the limit ("0.5", "0.8", "1"), above 0, at most 10, 6 decimals. */
const fractionSchema = z
  .string()
  .regex(/^\d{1,2}(\.\d{1,6})?$/, 'must be a decimal string such as "0.8"')
  .refine((t) => Number(t) > 0 && Number(t) <= 10, 'must be above 0 and at most 10');

export const budgetBodySchema = z
  .object({
    limit_usd: usdAmountSchema(),
    period: z.enum(BUDGET_PERIODS),
    key_id: externalIdSchema.optional(),
    model: modelSchema.optional(),
    action: z.enum(['block', 'notify']),
    alert_at: z
      .array(fractionSchema)
      .max(10)
      .refine((list) => new Set(list.map(Number)).size === list.length, 'thresholds must differ')
      .optional(),
  })
  .strict();
export class BudgetBodyDto extends createZodDto(budgetBodySchema) {}

export class UserIdParamDto extends createZodDto(z.object({ id: idSchema })) {}
export class BudgetParamsDto extends createZodDto(z.object({ id: idSchema, budget_id: externalIdSchema })) {}

export const balanceAlertsBodySchema = z
  .object({ balance_below_usd: z.array(usdAmountSchema()).max(10).refine((list) => new Set(list).size === list.length, 'thresholds must differ') })
  .strict();
export class BalanceAlertsBodyDto extends createZodDto(balanceAlertsBodySchema) {}

export const autoTopupBodySchema = z
  .object({
    below_usd: usdAmountSchema(),
    amount_usd: usdAmountSchema().refine((atto) => atto > 0n, 'must be greater than zero'),
    max_per_month_usd: usdAmountSchema(),
    enabled: z.boolean().optional(),
  })
  .strict();
export class AutoTopupBodyDto extends createZodDto(autoTopupBodySchema) {}

export class TopupRequestParamsDto extends createZodDto(z.object({ id: idSchema, request_id: externalIdSchema })) {}
export const topupFailureBodySchema = z.object({ reason: z.string().min(1).max(500).regex(/\S/, 'must not be blank') }).strict();
export class TopupFailureBodyDto extends createZodDto(topupFailureBodySchema) {}

/** `grant` of POST /v1/admin/users/:id/credits: credit that expires. */
export const grantSchema = z.object({ expires_at: timestampSchema, name: z.string().min(1).max(200).optional() }).strict();
