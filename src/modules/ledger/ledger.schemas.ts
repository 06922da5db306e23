// Response body of GET /v1/admin/ledger/check (ledger.presenter.ts): money as decimal USD strings.
import { z } from 'zod';
import { createZodDto } from '../../common/validation/zod-dto.js';

/** A check another module registers (ledger-check-extension.ts): `ok` and its own findings. */
const registeredCheckSchema = z.object({ ok: z.boolean() }).passthrough();

export const ledgerCheckResponseSchema = z.object({
  ok: z.boolean().describe('the ledger and every registered check hold'),
  mode: z.enum(['checkpoint', 'full']),
  checkpoint: z
    .object({ id: z.string(), through_entry_id: z.string(), created_at: z.string(), intact: z.boolean(), entries_since: z.number().int() })
    .nullable()
    .describe('the verified checkpoint the check started from; null in full mode'),
  journal_entries: z.number().int(),
  postings_sum: z.string().describe('decimal USD; "0" when the ledger balances'),
  postings_sum_atto: z.string(),
  unbalanced_entries: z.number().int(),
  mismatched_accounts: z.array(z.object({ account: z.string(), stored_usd: z.string().nullable(), postings_usd: z.string() })),
  held_mismatches: z.array(z.object({ account: z.string(), held_usd: z.string(), active_holds_usd: z.string() })),
  rollups: registeredCheckSchema.optional().describe('earnings rollups against the raw events'),
  refunds: registeredCheckSchema.optional(),
  settlement: registeredCheckSchema.optional().describe('paid lines against on-chain transfers'),
  spend_rollup: registeredCheckSchema.optional().describe("budgeted users' daily spend rollup against their events"),
  timings_ms: z.record(z.string(), z.number()).describe('milliseconds per check'),
});
export class LedgerCheckResponseDto extends createZodDto(ledgerCheckResponseSchema) {}
