import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { describeAccount, userAccount } from './account-codes.js';
import { lowBalanceCrossings, lowBalanceEvents, type LowBalanceChange } from './low-balance-crossings.js';
import type { SqlClient, SqlRunner } from '../../database/database.service.js';
import { assert } from '../../common/errors/index.js';
import { assertBalanced, netBalanceDeltas, type BalanceDelta, type JournalDraft } from './journal-draft.js';
import type { AccountKind } from './account-codes.js';
import { LedgerRepository, type AccountBalance, type ContributorBalanceRow, type ContributorCursor, type ContributorSort } from './ledger.repository.js';

export type { LowBalanceChange } from './low-balance-crossings.js';
export type { AccountBalance, ContributorBalanceRow, ContributorCursor, ContributorSort } from './ledger.repository.js';

const MISMATCHES_REPORTED_MAX = 100;

export interface PostOptions {
  /** Reserved (held) amounts moved on user accounts in the same ordered update. */
  heldDeltas?: Map<string, bigint>;
  /** Filled with the grants_until of the touched accounts that have one. */
  grantsUntil?: Map<string, Date>;
  /** Filled with the touched accounts whose user has budgets (spend_rollup). */
  spendRollup?: Set<string>;
  /**
   * user.balance_low is of the balance api.md shows: purchased credit + what the user's unexpired
   * grants hold. The ledger knows the purchased part (the user's account), which is the whole
   * balance of a user without unexpired grants.
   * - 'purchased' (default): every charged user is judged on its account: only for posts that
   *   never charge a user holding grants (the usage and adjustment posts pass `deferred`).
   * - `{grantsAt, deferred}`: a user whose grants_until is after grantsAt is not judged here; its
   *   change (purchased after, delta) is pushed to `deferred` for the caller, which reads the
   *   user's grants under the lock this post took and calls announceLowBalances with them.
   * - 'none': the entries move money within users' balances (a refund's grant part): no crossing.
   */
  lowBalance?: 'purchased' | 'none' | { grantsAt: Date; deferred: LowBalanceChange[] };
}

/** The users' accounts a post charged (a negative balance delta), with the balance after. */
function userBalanceChanges(deltas: readonly BalanceDelta[], balancesAfter: ReadonlyMap<string, bigint>): LowBalanceChange[] {
  const changes: LowBalanceChange[] = [];
  for (const d of deltas) {
    if (d.balanceDeltaAtto >= 0n) continue; // only a charge can cross below
    const info = describeAccount(d.accountCode);
    const after = balancesAfter.get(d.accountCode);
    if (info.kind === 'user' && info.ownerId !== null && after !== undefined) changes.push({ userId: info.ownerId, deltaAtto: d.balanceDeltaAtto, balanceAtto: after });
  }
  return changes;
}

export interface LedgerCheckReport {
  ok: boolean;
  journalEntries: bigint;
  postingsSumAtto: bigint;
  unbalancedEntries: bigint;
  mismatchedAccounts: Array<{ account: string; storedAtto: bigint | null; postedAtto: bigint }>;
  heldMismatches: Array<{ account: string; heldAtto: bigint; activeHoldsAtto: bigint }>;
}

/**
 * The double-entry ledger: the writer of journal entries and stored balances (usage, reprice,
 * holds, credits, adjustments and settlement all post here). Its batched form, for the hot path:
 * a small usage group commit is one statement (UsageRepository.insertEventsAndPost) composing the
 * ledger's own CTEs (batched-posting.ts) over the entries of usageJournalDraft, checked balanced.
 */
@Injectable()
export class LedgerService {
  private readonly lowBalanceAtto: bigint;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: LedgerRepository,
    private readonly webhooks: WebhookOutbox,
  ) {
    this.lowBalanceAtto = config.USER_LOW_BALANCE_USD;
  }

  /** The user.balance_low threshold, for the batched form (batched-posting.ts) to apply the same rule. */
  get lowBalanceThresholdAtto(): bigint {
    return this.lowBalanceAtto;
  }

  /**
   * Posts journal transactions inside the caller's database transaction. Entries whose
   * (kind, ref) already exist are skipped (idempotent); returns the written ones, "kind/ref" ->
   * journal entry id. See PostOptions for the held amounts, the flags read back and user.balance_low.
   */
  async post(client: SqlClient, drafts: JournalDraft[], options: PostOptions = {}): Promise<ReadonlyMap<string, bigint>> {
    for (const draft of drafts) assertBalanced(draft);
    const written = await this.repository.insertEntries(client, drafts);
    // As many written as drafts: every draft was written (written keys are distinct draft keys).
    const writtenDrafts = written.size === drafts.length ? drafts : drafts.filter((d) => written.has(`${d.kind}/${d.ref}`));
    const deltas = netBalanceDeltas(writtenDrafts, options.heldDeltas);
    const lowBalance = options.lowBalance ?? 'purchased';
    // The deferral needs every touched account's grants_until: returned by the upsert anyway.
    const grantsUntil = options.grantsUntil ?? (typeof lowBalance === 'object' ? new Map<string, Date>() : undefined);
    const balancesAfter = await this.repository.applyDeltas(client, deltas, grantsUntil, options.spendRollup);
    if (lowBalance === 'none') return written;
    const changes = userBalanceChanges(deltas, balancesAfter);
    if (typeof lowBalance === 'object') {
      // Grant holders' balance_low is the caller's, which reads their grants under this lock.
      const holdsGrants = (c: LowBalanceChange) => (grantsUntil!.get(userAccount(c.userId))?.getTime() ?? 0) > lowBalance.grantsAt.getTime();
      lowBalance.deferred.push(...changes.filter(holdsGrants));
      await this.announceLowBalances(client, changes.filter((c) => !holdsGrants(c)));
    } else {
      await this.announceLowBalances(client, changes);
    }
    return written;
  }

  /**
   * user.balance_low for each change that took a user's balance from at least the threshold to
   * below it. `balanceAtto` is the balance after (for a grant holder, purchased + what its
   * unexpired grants hold), `deltaAtto` what the change moved it by.
   */
  async announceLowBalances(client: SqlClient, changes: readonly LowBalanceChange[]): Promise<void> {
    if (changes.length === 0) return;
    const crossings = lowBalanceCrossings({ changes, thresholdAtto: this.lowBalanceAtto });
    if (crossings.length > 0) await this.webhooks.emit(client, lowBalanceEvents(crossings, this.lowBalanceAtto, new Date()));
  }

  /** Posts exactly one entry and fails loudly if it had already been posted; returns its id. */
  async postOne(client: SqlClient, draft: JournalDraft, options: Pick<PostOptions, 'lowBalance'> = {}): Promise<bigint> {
    const id = (await this.post(client, [draft], options)).get(`${draft.kind}/${draft.ref}`);
    assert(id !== undefined, `journal entry ${draft.kind}/${draft.ref} already exists`);
    return id;
  }

  async applyHeldDeltas(client: SqlClient, heldDeltas: Map<string, bigint>): Promise<void> {
    // Held amounts never change a balance: no crossing to look for.
    await this.repository.applyDeltas(client, netBalanceDeltas([], heldDeltas));
  }

  lockAccount(client: SqlClient, code: string): Promise<AccountBalance> {
    return this.repository.lockAccount(client, code);
  }

  extendGrantsUntil(client: SqlClient, code: string, expiresAt: Date): Promise<void> {
    return this.repository.extendGrantsUntil(client, code, expiresAt);
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

  /** Stored balances and held amounts summed per kind of tracked account (a kind without accounts is absent). */
  totalsByAccountKind(runner?: SqlRunner): Promise<Map<AccountKind, { balanceAtto: bigint; heldAtto: bigint }>> {
    return this.repository.totalsByAccountKind(runner);
  }

  /**
   * What entries of `intoKind` credited plus what entries of `outOfKind` debited, over all
   * accounts: e.g. settlement_paid into paid accounts minus settlement_reorged out of them.
   */
  netMoved(input: { intoKind: string; outOfKind: string }, runner?: SqlRunner): Promise<bigint> {
    return this.repository.netMoved(input, runner);
  }

  /** One page of the contributor registry with its three accounts' stored balances (admin list). */
  contributorBalancePage(input: { sort: ContributorSort; after: ContributorCursor | null; limit: number; search?: string }): Promise<ContributorBalanceRow[]> {
    return this.repository.contributorBalancePage(input);
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
