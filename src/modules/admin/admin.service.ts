import { Injectable } from '@nestjs/common';
import { getAddress } from 'viem';
import { z } from 'zod';
import { validationFailed } from '../../common/errors/index.js';
import { decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { AuditService } from '../audit/audit.service.js';
import { contributorBalancesOf, contributorBalancesToJson } from '../earnings/contributor-balances.js';
import { toJsonInteger } from '../earnings/earnings-report.js';
import { LedgerService, type ContributorBalanceRow, type ContributorCursor, type ContributorSort } from '../ledger/ledger.service.js';
import { SettlementService } from '../settlement/statement/settlement.service.js';
import { UsageService } from '../usage/usage.service.js';
import { AdminRepository } from './admin.repository.js';

const contributorCursorSchema = z.union([
  z.object({ s: z.literal('id'), id: z.string().min(1) }).strict(),
  z.object({ s: z.literal('payable_desc'), p: z.string().regex(/^-?\d{1,40}$/), id: z.string().min(1) }).strict(),
]);
const auditCursorSchema = z.object({ id: z.string().regex(/^\d{1,19}$/) }).strict();

/** Addresses are shown checksummed (EIP-55); a stored value that is not an address is shown as is. */
function checksummed(address: string): string {
  try {
    return getAddress(address);
  } catch {
    return address;
  }
}

function contributorToJson(row: ContributorBalanceRow) {
  return {
    id: row.id,
    tier: row.tier,
    status: row.status,
    payout_address: checksummed(row.payoutAddress),
    balances: contributorBalancesToJson(contributorBalancesOf(row)),
  };
}

/** Admin reads: overview, contributor list, audit log. Shapes are the api.md JSON. */
@Injectable()
export class AdminService {
  constructor(
    private readonly repository: AdminRepository,
    private readonly ledger: LedgerService,
    private readonly usage: UsageService,
    private readonly audit: AuditService,
    private readonly settlement: SettlementService,
  ) {}

  async listContributors(input: { sort: ContributorSort; limit: number; cursor?: string }) {
    const decoded = decodeCursor(input.cursor, contributorCursorSchema);
    if (decoded && decoded.s !== input.sort) {
      throw validationFailed([{ field: 'cursor', message: `was returned for sort=${decoded.s}, not sort=${input.sort}` }]);
    }
    const after: ContributorCursor | null =
      decoded === null ? null : decoded.s === 'id' ? { sort: 'id', id: decoded.id } : { sort: 'payable_desc', payableAtto: BigInt(decoded.p), id: decoded.id };
    const rows = await this.ledger.contributorBalancePage({ sort: input.sort, after, limit: input.limit + 1 });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > input.limit && last
        ? encodeCursor(input.sort === 'id' ? { s: 'id', id: last.id } : { s: 'payable_desc', p: last.payableAtto.toString(), id: last.id })
        : null;
    return { data: page.map(contributorToJson), next_cursor: nextCursor };
  }

  /** Newest first; the cursor is the id of the last entry seen. */
  async auditLog(input: { limit: number; cursor?: string }) {
    const decoded = decodeCursor(input.cursor, auditCursorSchema);
    const records = await this.audit.list(input.limit + 1, decoded ? BigInt(decoded.id) : null);
    const page = records.slice(0, input.limit);
    const last = page.at(-1);
    return {
      data: page.map((r) => ({
        id: r.id.toString(),
        actor_id: r.actorId,
        actor_role: r.actorRole,
        action: r.action,
        target: r.target,
        before: r.before ?? null,
        after: r.after ?? null,
        created_at: r.createdAt.toISOString(),
      })),
      next_cursor: records.length > input.limit && last ? encodeCursor({ id: last.id.toString() }) : null,
    };
  }

  /**
   * Platform totals. charged/revenue come from the daily rollup (revenue = the platform's margin
   * on priced usage); balances are stored account balances summed by kind; the hot wallet and the
   * last settlement come from the settlement module (hot_wallet is null when settlement is off).
   */
  async overview() {
    const [usage, byKind, unpriced, lastSettlement, hotWallet] = await Promise.all([
      this.repository.usageTotals(),
      this.ledger.totalsByAccountKind(),
      this.usage.countUnpriced(),
      this.settlement.lastSettlementSummary(),
      this.settlement.hotWalletStatus(),
    ]);
    return {
      charged_usd: formatAttoAsUsd(usage.chargedAtto),
      revenue_usd: formatAttoAsUsd(usage.marginAtto),
      users_balance_usd: formatAttoAsUsd(byKind.get('user')?.balanceAtto ?? 0n),
      held_usd: formatAttoAsUsd(byKind.get('user')?.heldAtto ?? 0n),
      contributors_payable_usd: formatAttoAsUsd(byKind.get('contributor_payable')?.balanceAtto ?? 0n),
      in_settlement_usd: formatAttoAsUsd(byKind.get('contributor_in_settlement')?.balanceAtto ?? 0n),
      paid_usd: formatAttoAsUsd(byKind.get('contributor_paid')?.balanceAtto ?? 0n),
      unpriced_events: toJsonInteger(unpriced),
      hot_wallet: hotWallet,
      last_settlement: lastSettlement,
    };
  }
}
