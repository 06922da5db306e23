import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { idSchema } from '../../common/validation/fields.js';
import { ROLES } from '../../common/auth/auth.types.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../common/http/pagination.js';

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

export const listApiKeysQuerySchema = z
  .object({
    role: z.enum(ROLES).optional(),
    contributor_id: idSchema.optional(),
    limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
    cursor: z.string().max(512).optional(),
  })
  .strict();
export class ListApiKeysQueryDto extends createZodDto(listApiKeysQuerySchema) {}

export const apiKeyListSchema = z.object({
  data: z.array(
    z.object({
      id: z.string().uuid(),
      name: z.string().nullable(),
      role: z.enum(ROLES),
      contributor_id: z.string().nullable(),
      key_prefix: z.string().describe('the first characters of the key, to recognize it; never the key'),
      signed: z.boolean(),
      created_at: z.string(),
      last_used_at: z.string().nullable().describe('to the minute; null: never used'),
      revoked_at: z.string().nullable(),
    }),
  ),
  next_cursor: z.string().nullable(),
});
export class ApiKeyListResponseDto extends createZodDto(apiKeyListSchema) {}
