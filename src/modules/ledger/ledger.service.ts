import { Injectable } from '@nestjs/common';
import type { SqlClient } from '../../database/database.service.js';
import { assert } from '../../common/errors/index.js';
import { assertBalanced, netBalanceDeltas, type JournalDraft } from './journal-draft.js';
import { LedgerRepository, type AccountBalance } from './ledger.repository.js';

const MISMATCHES_REPORTED_MAX = 100;

export interface LedgerCheckReport {
  ok: boolean;
  journalEntries: bigint;
  postingsSumAtto: bigint;
  unbalancedEntries: bigint;
  mismatchedAccounts: Array<{ account: string; storedAtto: bigint | null; postedAtto: bigint }>;
  heldMismatches: Array<{ account: string; heldAtto: bigint; activeHoldsAtto: bigint }>;
}

/**
 * The double-entry ledger: the writer of journal entries and stored balances. One exception, for
 * the hot path: a small usage group commit is one statement (UsageRepository.insertEventsAndPost)
 * that writes the entries of usageJournalDraft, checked balanced, and the balances they sum to.
 */
@Injectable()
export class LedgerService {
  constructor(private readonly repository: LedgerRepository) {}

  /**
   * Posts journal transactions inside the caller's database transaction. Entries whose
   * (kind, ref) already exist are skipped (idempotent); returns the keys that were written.
   * heldDeltas move reserved (held) amounts on user accounts in the same ordered update.
   */
  async post(client: SqlClient, drafts: JournalDraft[], heldDeltas: Map<string, bigint> = new Map()): Promise<Set<string>> {
    for (const draft of drafts) assertBalanced(draft);
    const written = await this.repository.insertEntries(client, drafts);
    // As many written as drafts: every draft was written (written keys are distinct draft keys).
    const writtenDrafts = written.size === drafts.length ? drafts : drafts.filter((d) => written.has(`${d.kind}/${d.ref}`));
    await this.repository.applyDeltas(client, netBalanceDeltas(writtenDrafts, heldDeltas));
    return new Set(written.keys());
  }

  /** Posts exactly one entry and fails loudly if it had already been posted. */
  async postOne(client: SqlClient, draft: JournalDraft): Promise<void> {
    const written = await this.post(client, [draft]);
    assert(written.has(`${draft.kind}/${draft.ref}`), `journal entry ${draft.kind}/${draft.ref} already exists`);
  }

  applyHeldDeltas(client: SqlClient, heldDeltas: Map<string, bigint>): Promise<void> {
    return this.repository.applyDeltas(client, netBalanceDeltas([], heldDeltas));
  }

  lockAccount(client: SqlClient, code: string): Promise<AccountBalance> {
    return this.repository.lockAccount(client, code);
  }

  ensureAccount(client: SqlClient, code: string): Promise<void> {
    return this.repository.ensureAccount(client, code);
  }

  balances(codes: string[], client?: SqlClient): Promise<Map<string, AccountBalance>> {
    return this.repository.findBalances(codes, client);
  }

  sumPostings(code: string): Promise<bigint> {
    return this.repository.sumPostings(code);
  }

  /** Recomputes every balance from postings and proves each transaction and the whole sum to zero. */
  async check(): Promise<LedgerCheckReport> {
    const [totals, mismatched, held] = await Promise.all([
      this.repository.checkTotals(),
      this.repository.findMismatchedAccounts(MISMATCHES_REPORTED_MAX),
      this.repository.findHeldMismatches(MISMATCHES_REPORTED_MAX),
    ]);
    const ok = totals.postingsSumAtto === 0n && totals.unbalancedEntries === 0n && mismatched.length === 0 && held.length === 0;
    return {
      ok,
      journalEntries: totals.entries,
      postingsSumAtto: totals.postingsSumAtto,
      unbalancedEntries: totals.unbalancedEntries,
      mismatchedAccounts: mismatched.map((m) => ({ account: m.code, storedAtto: m.storedAtto, postedAtto: m.postedAtto })),
      heldMismatches: held.map((h) => ({ account: h.code, heldAtto: h.heldAtto, activeHoldsAtto: h.activeHoldsAtto })),
    };
  }
}
