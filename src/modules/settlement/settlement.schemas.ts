import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { pageQuerySchema } from '../../common/http/pagination.js';

export const createSettlementSchema = z
  .object({ dry_run: z.boolean().optional().describe('compute and return the lines, move nothing') })
  .strict();
export class CreateSettlementDto extends createZodDto(createSettlementSchema) {}

export class SettlementPageQueryDto extends createZodDto(pageQuerySchema.strict()) {}

export const settlementJobSchema = z.object({ settlement_id: z.string().uuid() });
