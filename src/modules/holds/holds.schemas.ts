import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { externalIdSchema, idSchema, modelSchema, usdAmountSchema } from '../../common/validation/fields.js';

export const createHoldSchema = z
  .object({
    hold_id: externalIdSchema,
    user_id: idSchema,
    amount_usd: usdAmountSchema().refine((atto) => atto > 0n, 'must be greater than zero'),
    expires_in_seconds: z.number().int().min(1).max(30 * 24 * 3600).optional(),
    /** The end user's key at the gateway and the model to be called: budgets scoped to them apply. */
    key_id: externalIdSchema.optional(),
    model: modelSchema.optional(),
  })
  .strict();
export class CreateHoldDto extends createZodDto(createHoldSchema) {}
