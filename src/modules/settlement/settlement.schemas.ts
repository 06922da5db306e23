import { createZodDto } from '../../common/validation/zod-dto.js';
import { z } from 'zod';
import { pageQuerySchema } from '../../common/http/pagination.js';
import { SETTLEMENT_STATUSES } from './creation/settlement.types.js';

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

// ---- response bodies (settlement.presenter.ts): money as decimal USDC strings ----

const nullableTimestamp = z.string().nullable();

export const settlementResponseSchema = z.object({
  settlement_id: z.string().uuid(),
  status: z.enum(SETTLEMENT_STATUSES),
  trigger: z.string().describe('"admin" or "schedule"'),
  payout_count: z.number().int(),
  total_usdc: z.string().describe('decimal USDC'),
  total_micro_usdc: z.string().describe('the exact total in micro-USDC (6 decimals), as a decimal string'),
  requires_approval: z.boolean(),
  approved_by: z.string().nullable(),
  approved_at: nullableTimestamp,
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  completed_at: nullableTimestamp,
});
export class SettlementResponseDto extends createZodDto(settlementResponseSchema) {}

export const settlementListResponseSchema = z.object({ data: z.array(settlementResponseSchema), next_cursor: z.string().nullable() });
export class SettlementListResponseDto extends createZodDto(settlementListResponseSchema) {}

export const plannedLineResponseSchema = z.object({ contributor_id: z.string(), payout_address: z.string(), amount_usdc: z.string() });

/** Created (a settlement and its lines), a dry run (settlement_id null, lines) or "empty" (nobody to pay). */
export const createdSettlementResponseSchema = settlementResponseSchema
  .partial()
  .extend({
    settlement_id: z.string().uuid().nullable().describe('null for a dry run and for "empty"'),
    status: z.string().describe('a settlement status, "dry_run" or "empty"'),
    payout_count: z.number().int(),
    total_usdc: z.string(),
    lines: z.array(plannedLineResponseSchema).optional().describe('absent when "empty"'),
  });
export class CreatedSettlementResponseDto extends createZodDto(createdSettlementResponseSchema) {}

export const settlementLineResponseSchema = z.object({
  line_id: z.string(),
  contributor_id: z.string(),
  payout_address: z.string(),
  amount_usdc: z.string(),
  status: z.string().describe('queued, submitted, paid or failed'),
  tx_hash: z.string().nullable(),
  failure_reason: z.string().nullable(),
  confirmed_at: nullableTimestamp,
});

export const settlementTxResponseSchema = z.object({
  hash: z.string(),
  tx_hash: z.string().describe('alias of hash'),
  nonce: z.number().int(),
  attempt: z.number().int(),
  batch_id: z.string().describe('bytes32 hex: the contract runs each batch once'),
  status: z.string(),
  gas_used: z.string().nullable(),
  block: z.string().nullable(),
  block_number: z.string().nullable().describe('alias of block'),
  block_hash: z.string().nullable(),
  final: z.boolean(),
  reorg_count: z.number().int(),
  reorg_conflict: z.string().nullable().describe('set when the chain paid more than the ledger booked after a reorganisation'),
  line_count: z.number().int(),
  max_fee_per_gas_wei: z.string(),
  error: z.string().nullable(),
  created_at: z.string(),
});

export const settlementDetailResponseSchema = settlementResponseSchema.extend({
  lines: z.array(settlementLineResponseSchema),
  transactions: z.array(settlementTxResponseSchema),
  reconciliation: z.unknown().describe('the stored on-chain reconciliation, or null before one ran'),
});
export class SettlementDetailResponseDto extends createZodDto(settlementDetailResponseSchema) {}

export const payoutResponseSchema = z.object({
  payout_id: z.string(),
  settlement_id: z.string().uuid(),
  amount_usdc: z.string(),
  status: z.string(),
  tx_hash: z.string().nullable(),
  confirmed_at: nullableTimestamp,
  failure_reason: z.string().nullable(),
});
export const payoutListResponseSchema = z.object({ data: z.array(payoutResponseSchema), next_cursor: z.string().nullable() });
export class PayoutListResponseDto extends createZodDto(payoutListResponseSchema) {}

export const reconciliationResolutionResponseSchema = z.object({
  resolution_id: z.string(),
  settlement_id: z.string().uuid(),
  reason: z.string(),
  resolved_by: z.string().nullable(),
  resolved_at: z.string(),
  reconciliation: z.unknown().describe('the findings accepted, as they were stored'),
});
export class ReconciliationResolutionResponseDto extends createZodDto(reconciliationResolutionResponseSchema) {}
