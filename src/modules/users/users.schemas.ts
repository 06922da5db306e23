import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { externalIdSchema, idSchema, usdAmountSchema } from '../../common/validation/fields.js';

export const creditSchema = z
  .object({
    amount_usd: usdAmountSchema({ allowNegative: true }),
    reference: externalIdSchema,
    // Kept as sent, but not blank: a whitespace-only reason was accepted for a negative credit.
    reason: z.string().min(1).max(500).regex(/\S/, 'must not be blank').optional(),
  })
  .strict();
export class CreditDto extends createZodDto(creditSchema) {}

export class UserIdParamDto extends createZodDto(z.object({ id: idSchema })) {}
