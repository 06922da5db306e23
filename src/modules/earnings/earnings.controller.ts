import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../../common/auth/auth.types.js';
import { assertCanReadContributor } from '../auth/access.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { contributorBalancesToJson } from './contributor-balances.js';
import { earningsCsvFilename, renderEarningsCsv } from './earnings-csv.js';
import { reportToJson } from './earnings-report.js';
import { BalanceResponseDto, EarningsQueryDto, EarningsResponseDto } from './earnings.schemas.js';
import { EarningsService } from './earnings.service.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

/** Contributor-facing reads: a contributor key for itself, an admin key for anyone. */
@ApiTags('contributor earnings')
@ApiBearerAuth()
@Controller('v1/contributors/:id')
@Roles('admin', 'contributor')
export class EarningsController {
  constructor(private readonly earnings: EarningsService) {}

  @Get('balance')
  @ApiOkResponse({ type: BalanceResponseDto })
  async balance(@CurrentPrincipal() principal: Principal, @Param('id', idParam('id')) id: string) {
    assertCanReadContributor(principal, id);
    const view = await this.earnings.balance(id);
    return { contributor_id: view.contributor.id, tier: view.contributor.tier, ...contributorBalancesToJson(view.balances) };
  }

  @Get('earnings')
  @ApiOkResponse({ type: EarningsResponseDto })
  async earningsJson(@CurrentPrincipal() principal: Principal, @Param('id', idParam('id')) id: string, @Query() query: EarningsQueryDto) {
    assertCanReadContributor(principal, id);
    const report = await this.earnings.earnings({ contributorId: id, from: query.from, to: query.to, groupBy: query.group_by });
    return reportToJson(report);
  }

  @Get('earnings.csv')
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'The same rows as /earnings as CSV: a header line, money as decimal USD strings.' })
  async earningsCsv(
    @CurrentPrincipal() principal: Principal,
    @Param('id', idParam('id')) id: string,
    @Query() query: EarningsQueryDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    assertCanReadContributor(principal, id);
    const report = await this.earnings.earnings({ contributorId: id, from: query.from, to: query.to, groupBy: query.group_by });
    // Set only on success (not with @Header): an error must still go out as JSON.
    res.header('Content-Type', 'text/csv; charset=utf-8');
    res.header('Content-Disposition', `attachment; filename="${earningsCsvFilename(report)}"`);
    return renderEarningsCsv(report);
  }
}
