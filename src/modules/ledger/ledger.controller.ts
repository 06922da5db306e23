import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/roles.decorator.js';
import { ledgerCheckBody } from './ledger.presenter.js';
import { LedgerService } from './ledger.service.js';
import { LedgerCheckRegistry } from './ledger-check-extension.js';

@ApiTags('admin: ledger')
@ApiBearerAuth()
@Controller('v1/admin/ledger')
@Roles('admin')
export class LedgerController {
  constructor(
    private readonly ledger: LedgerService,
    private readonly registry: LedgerCheckRegistry,
  ) {}

  /** Recomputes every balance from postings; proves each transaction and the total sum to zero. */
  @Get('check')
  async check() {
    const report = await this.ledger.check();
    const extra = await Promise.all(this.registry.all().map(async (e) => [e.name, await e.run()] as const));
    const ok = report.ok && extra.every(([, r]) => r.ok);
    return ledgerCheckBody({ ok, report, extra });
  }
}
