import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { pageQuerySchema } from '../../common/http/pagination.js';

// The body is optional: POST with no body at all means {} (a real run).
export const createSettlementSchema = z.preprocess(
  (body) => body ?? {},
  z.object({ dry_run: z.boolean().optional().describe('compute and return the lines, move nothing') }).strict(),
);
export class CreateSettlementDto extends createZodDto(createSettlementSchema) {}

export class SettlementPageQueryDto extends createZodDto(pageQuerySchema.strict()) {}

/** An operator's resolution of a failed reconciliation: why the difference is accepted (audited). */
export const resolveReconciliationSchema = z
  .object({
    reason: z.string().trim().min(1, 'must say why the difference is accepted').max(2000),
  })
  .strict();
export class ResolveReconciliationDto extends createZodDto(resolveReconciliationSchema) {}
