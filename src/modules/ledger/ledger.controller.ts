import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/roles.decorator.js';
import { ledgerCheckBody } from './ledger.presenter.js';
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
    return ledgerCheckBody({ ok, report, extra });
  }
}
