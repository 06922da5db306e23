import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { DomainError } from '../../common/errors/index.js';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Roles } from '../../common/auth/roles.decorator.js';
import { ledgerCheckBody } from './ledger.presenter.js';
import { LedgerCheckService } from './ledger-check.service.js';
import { LedgerCheckResponseDto } from './ledger.schemas.js';

@ApiTags('admin: ledger')
@ApiBearerAuth()
@Controller('v1/admin/ledger')
@Roles('admin')
export class LedgerController {
  constructor(private readonly checks: LedgerCheckService) {}

  /**
   * Recomputes every balance from postings (from the newest verified checkpoint, or all of them
   * with ?full=true); proves each transaction and the total sum to zero.
   */
  @Get('check')
  @ApiOkResponse({ type: LedgerCheckResponseDto })
  @ApiQuery({ name: 'full', required: false, enum: ['true', 'false'], description: 'true: recompute from every posting instead of the newest checkpoint' })
  async check(@Query('full') full?: string) {
    if (full !== undefined && full !== 'true' && full !== 'false') throw new DomainError('validation_failed', 'full must be true or false', [{ field: 'full', message: 'must be true or false' }]);
    const { ok, report, mode, checkpoint, timingsMs, extensions: extra } = await this.checks.run({ full: full === 'true' });
    return { ...ledgerCheckBody({ ok, report, mode, checkpoint, extra }), timings_ms: timingsMs };
  }

  /**
   * Writes a verified checkpoint at the journal's frontier now (the worker's ledger-checkpoint job
   * does it every 10 minutes); `written: false` when nothing was posted since the last one.
   */
  @Post('checkpoints')
  @HttpCode(200)
  async checkpoint() {
    const written = await this.checks.writeCheckpoint();
    return written === null
      ? { written: false }
      : { written: true, id: written.id.toString(), through_entry_id: written.throughEntryId.toString(), journal_entries: Number(written.entries) };
  }
}
