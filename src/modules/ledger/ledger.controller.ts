import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { Roles } from '../auth/roles.decorator.js';
import { LedgerCheckService } from './ledger-check.service.js';

@ApiTags('admin: ledger')
@ApiBearerAuth()
@Controller('v1/admin/ledger')
@Roles('admin')
export class LedgerController {
  constructor(private readonly checks: LedgerCheckService) {}

  /** Recomputes every balance from postings; proves each transaction and the total sum to zero. */
  @Get('check')
  async check() {
    const { ok, report, extensions: extra } = await this.checks.run();
    return {
      ok,
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
}
