// API body of GET /v1/admin/ledger/check (money as decimal strings, exact atto alongside).
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { LedgerCheckReport } from './ledger.service.js';
import type { CheckpointInfo } from './ledger-checkpoint.service.js';

/** `extra`: the registered checks' sections (rollups, settlement), each under its name. */
export function ledgerCheckBody(input: { ok: boolean; report: LedgerCheckReport; mode?: 'checkpoint' | 'full'; checkpoint?: CheckpointInfo | null; extra: ReadonlyArray<readonly [string, unknown]> }) {
  const { ok, report, extra } = input;
  const checkpoint = input.checkpoint ?? null;
  return {
    ok,
    mode: input.mode ?? 'full',
    checkpoint:
      checkpoint === null
        ? null
        : {
            id: checkpoint.id.toString(),
            through_entry_id: checkpoint.throughEntryId.toString(),
            created_at: checkpoint.createdAt.toISOString(),
            intact: checkpoint.intact,
            entries_since: Number(checkpoint.entriesSince),
          },
    journal_entries: Number(report.journalEntries),
    postings_sum: formatAttoAsUsd(report.postingsSumAtto),
    postings_sum_atto: report.postingsSumAtto.toString(),
    unbalanced_entries: Number(report.unbalancedEntries),
    mismatched_accounts: report.mismatchedAccounts.map((m) => ({
      account: m.account,
      stored_usd: m.storedAtto === null ? null : formatAttoAsUsd(m.storedAtto),
      postings_usd: formatAttoAsUsd(m.postedAtto),
    })),
    held_mismatches: report.heldMismatches.map((h) => ({
      account: h.account,
      held_usd: formatAttoAsUsd(h.heldAtto),
      active_holds_usd: formatAttoAsUsd(h.activeHoldsAtto),
    })),
    ...Object.fromEntries(extra),
  };
}
