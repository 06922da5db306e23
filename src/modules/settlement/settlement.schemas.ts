import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { pageQuerySchema } from '../../common/http/pagination.js';

// The body is optional: POST with no body at all means {} (a real run).
export const createSettlementSchema = z.preprocess(
  (body) => body ?? {},
  z.object({ dry_run: z.boolean().optional().describe('compute and return the lines, move nothing') }).strict(),
);
export class CreateSettlementDto extends createZodDto(createSettlementSchema) {}

export class SettlementPageQueryDto extends createZodDto(pageQuerySchema.strict()) {}
