import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { idSchema } from '../../common/validation/fields.js';
import { ROLES } from '../../common/auth/auth.types.js';

export const createApiKeySchema = z
  .object({
    role: z.enum(ROLES),
    contributor_id: idSchema.optional(),
    name: z.string().min(1).max(200).optional(),
    /** Gateway keys only: every request must then carry a Standard Webhooks signature. */
    signed: z.boolean().optional(),
  })
  .strict();
export class CreateApiKeyDto extends createZodDto(createApiKeySchema) {}

export const apiKeyCreatedSchema = z.object({
  id: z.string().uuid(),
  key: z.string(),
  role: z.enum(ROLES),
  contributor_id: z.string().nullable(),
  name: z.string().nullable(),
  created_at: z.string(),
  signed: z.boolean(),
  signing_secret: z.string().optional().describe('whsec_...: signs every request of this key; shown only here'),
});
export class ApiKeyCreatedResponseDto extends createZodDto(apiKeyCreatedSchema) {}
