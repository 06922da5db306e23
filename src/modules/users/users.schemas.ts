import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';
import { externalIdSchema, idSchema, timestampSchema, usdAmountSchema } from '../../common/validation/fields.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../common/http/pagination.js';

export const creditSchema = z
  .object({
    amount_usd: usdAmountSchema({ allowNegative: true }),
    reference: externalIdSchema,
    // Kept as sent, but not blank: a whitespace-only reason was accepted for a negative credit.
    reason: z.string().min(1).max(500).regex(/\S/, 'must not be blank').optional(),
    // A credit that expires (promotions, trials): its own ledger account, spent first, broken at expiry.
    grant: z
      .object({
        expires_at: timestampSchema.describe('when what is left moves to the platform (future, at most 730 days ahead)'),
        name: z.string().min(1).max(200).regex(/\S/, 'must not be blank').optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export class CreditDto extends createZodDto(creditSchema) {}

export class UserIdParamDto extends createZodDto(z.object({ id: idSchema })) {}

export const listUsersQuerySchema = z
  .object({
    q: z.string().min(1).max(200).optional().describe('part of the user id, any case'),
    limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
    cursor: z.string().max(512).optional(),
  })
  .strict();
export class ListUsersQueryDto extends createZodDto(listUsersQuerySchema) {}

const usd = z.string().describe('decimal USD, exact');
export const userListSchema = z.object({
  data: z.array(z.object({ user_id: z.string(), balance_usd: usd, held_usd: usd, available_usd: usd, granted_usd: usd, created_at: z.string() })),
  next_cursor: z.string().nullable(),
});
export class UserListResponseDto extends createZodDto(userListSchema) {}
