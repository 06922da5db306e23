import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';

const usd = z.string().describe('USD, exact decimal string');
const count = z.number().int();

export const statementResponseSchema = z.object({
  contributor_id: z.string(),
  month: z.string().describe('YYYY-MM (UTC)'),
  from: z.string().describe('First instant of the month (RFC 3339, UTC)'),
  to: z.string().describe('First instant of the next month (exclusive)'),
  month_ended: z.boolean().describe('false for the current month: figures to date'),
  opening_usd: usd.describe("Last month's closing"),
  earned_usd: usd,
  clawed_back_usd: usd,
  adjustments_usd: usd.describe('Signed'),
  paid_usd: usd.describe('Payouts confirmed in the month, less payouts reversed by a reorganisation'),
  closing_usd: usd.describe('opening + earned - clawed_back + adjustments - paid, exactly'),
  events: count,
  prompt_tokens: count,
  completion_tokens: count,
  official_usd: usd,
  payouts: z.array(
    z.object({
      payout_id: z.string(),
      settlement_id: z.string(),
      amount_usdc: z.string().describe('At most 6 decimals; negative for a reversed payout'),
      tx_hash: z.string().nullable(),
      confirmed_at: z.string().nullable(),
      booked_at: z.string(),
      kind: z.enum(['payout', 'payout_reversed']),
    }),
  ),
  earnings: z.array(
    z.object({ day: z.string(), model: z.string(), events: count, prompt_tokens: count, completion_tokens: count, official_usd: usd, earned_usd: usd }),
  ),
  lines: z.array(
    z.object({
      type: z.enum(['payout', 'payout_reversed', 'adjustment', 'clawback']),
      booked_at: z.string(),
      reference: z.string(),
      amount_usd: usd.describe('Signed effect on the balance'),
      note: z.string().nullable(),
    }),
  ),
});
export class StatementResponseDto extends createZodDto(statementResponseSchema) {}

export const statementQuerySchema = z
  .object({
    format: z
      .enum(['json', 'csv', 'pdf'], { error: 'must be one of json, csv, pdf' })
      .optional()
      .describe('Overrides the Accept header (for download links): json, csv or pdf'),
  })
  .strict();
export class StatementQueryDto extends createZodDto(statementQuerySchema) {}
