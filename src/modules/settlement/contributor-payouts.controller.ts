import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { payoutBody } from './settlement.presenter.js';
import { SettlementQueryService } from './settlement-query.service.js';
import { PayoutListResponseDto, SettlementPageQueryDto } from './settlement.schemas.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

@ApiTags('contributors')
@ApiBearerAuth()
@Controller('v1/contributors')
@Roles('admin', 'contributor')
export class ContributorPayoutsController {
  constructor(private readonly queries: SettlementQueryService) {}

  /** Newest first: one payout per settlement line of the contributor. */
  @Get(':id/payouts')
  @ApiOkResponse({ type: PayoutListResponseDto })
  async list(@CurrentPrincipal() principal: Principal, @Param('id', idParam('id')) contributorId: string, @Query() query: SettlementPageQueryDto) {
    const page = await this.queries.listContributorPayouts(principal, contributorId, query.limit, query.cursor);
    return { data: page.data.map(payoutBody), next_cursor: page.nextCursor };
  }
}
