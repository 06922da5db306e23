import { Injectable } from '@nestjs/common';
import { assert, DomainError } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { contributorPayable } from '../ledger/account-codes.js';
import { contributorAdjustmentDraft, contributorAdjustmentRef, type JournalDraft, type JournalKind } from '../ledger/journal-kinds.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { ContributorAdjustmentsRepository, type AdjustmentRecord } from './contributor-adjustments.repository.js';

export const ADJUSTMENT_JOURNAL_KIND = 'adjustment' satisfies JournalKind;
// Journal refs are namespaced per origin (journal-kinds.ts), since kind 'adjustment' is shared
// with negative user credits.
export const adjustmentJournalRef = contributorAdjustmentRef;

export interface AdjustmentCommand {
  contributorId: string;
  /** Signed: positive credits the contributor, negative claws back. Never zero. */
  amountAtto: bigint;
  reason: string;
  /** Idempotency key; the journal entry's ref is adjustmentJournalRef(reference). */
  reference: string;
}

export interface AdjustmentResult {
  record: AdjustmentRecord;
  replayed: boolean;
}

/** The journal transaction of an adjustment: the contributor's payable against platform:adjustments. */
export function adjustmentDraft(command: AdjustmentCommand): JournalDraft {
  return contributorAdjustmentDraft({ reference: command.reference, contributorId: command.contributorId, amountAtto: command.amountAtto, memo: command.reason });
}

function samePayload(record: AdjustmentRecord, command: AdjustmentCommand): boolean {
  return record.contributorId === command.contributorId && record.amountAtto === command.amountAtto && record.reason === command.reason;
}

/**
 * Admin corrections of a contributor's payable balance. A negative adjustment may take payable
 * below zero (a clawback of money already paid); settlement only pays positive balances above
 * the minimum, so a negative payable simply waits for later earnings.
 */
@Injectable()
export class ContributorAdjustmentsService {
  constructor(
    private readonly db: DatabaseService,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly contributors: ContributorsService,
    private readonly repository: ContributorAdjustmentsRepository,
  ) {}

  async adjust(actor: Principal, command: AdjustmentCommand): Promise<AdjustmentResult> {
    assert(command.amountAtto !== 0n, 'an adjustment moves a non-zero amount');
    // 404 for an unknown contributor; checked before the transaction since contributors are never deleted.
    await this.contributors.getById(command.contributorId);
    return this.db.transaction(async (client) => {
      // Locking payable first serializes adjustments of one contributor, so payable_after is exact.
      const payable = await this.ledger.lockAccount(client, contributorPayable(command.contributorId));
      const payableAfterAtto = payable.balanceAtto + command.amountAtto;
      const claimed = await this.repository.insertIfNew(client, {
        reference: command.reference,
        contributorId: command.contributorId,
        amountAtto: command.amountAtto,
        reason: command.reason,
        payableAfterAtto,
        actorId: actor.keyId,
      });
      if (!claimed) return this.replay(client, command);
      await this.postJournal(client, command);
      await this.audit.recordWithSql(client, actor, {
        action: 'contributor.adjust',
        target: `contributor:${command.contributorId}`,
        before: { payable_usd: formatAttoAsUsd(payable.balanceAtto) },
        after: {
          payable_usd: formatAttoAsUsd(payableAfterAtto),
          amount_usd: formatAttoAsUsd(command.amountAtto),
          reason: command.reason,
          reference: command.reference,
        },
      });
      return { record: claimed, replayed: false };
    });
  }

  private async replay(client: SqlClient, command: AdjustmentCommand): Promise<AdjustmentResult> {
    const existing = await this.repository.findByReference(client, command.reference);
    assert(existing, `adjustment ${command.reference} conflicted but cannot be read`);
    if (!samePayload(existing, command)) {
      throw new DomainError('idempotency_conflict', 'this reference was already used for a different adjustment', [
        { field: 'reference', message: 'already used with a different contributor, amount or reason' },
      ]);
    }
    return { record: existing, replayed: true };
  }

  private async postJournal(client: SqlClient, command: AdjustmentCommand): Promise<void> {
    const written = await this.ledger.post(client, [adjustmentDraft(command)]);
    // The reference was claimed above, so its journal entry cannot exist yet unless something
    // else wrote that ref: refuse it (the transaction rolls the claim back) rather than skip it.
    if (!written.has(`${ADJUSTMENT_JOURNAL_KIND}/${adjustmentJournalRef(command.reference)}`)) {
      throw new DomainError('idempotency_conflict', 'this reference was already used by another ledger adjustment', [
        { field: 'reference', message: 'already used by another ledger transaction' },
      ]);
    }
  }
}
