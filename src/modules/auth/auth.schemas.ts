import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { ROLES } from '../../common/auth/auth.types.js';

export const idText = z.string().min(1).max(128).regex(/^[A-Za-z0-9._:\-]+$/, 'only letters, digits and . _ : - are allowed');

export const createApiKeySchema = z
  .object({
    role: z.enum(ROLES),
    contributor_id: idText.optional(),
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
