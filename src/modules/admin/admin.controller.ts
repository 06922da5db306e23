import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import {
  AdjustmentBodyDto,
  AdjustmentResponseDto,
  AuditLogQueryDto,
  AuditLogResponseDto,
  ContributorListQueryDto,
  ContributorListResponseDto,
  OverviewDailyQueryDto,
  OverviewDailyResponseDto,
  OverviewResponseDto,
} from './admin.schemas.js';
import { adjustmentBody, auditLogBody, contributorPageBody, overviewBody, overviewDailyBody } from './admin.presenter.js';
import { AdminService } from './admin.service.js';
import { ContributorAdjustmentsService } from './contributor-adjustments.service.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

@ApiTags('admin: overview and contributors')
@ApiBearerAuth()
@Controller('v1/admin')
@Roles('admin')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly adjustments: ContributorAdjustmentsService,
  ) {}

  @Get('overview')
  @ApiOkResponse({ type: OverviewResponseDto })
  async overview() {
    return overviewBody(await this.admin.overview());
  }

  @Get('overview/daily')
  @ApiOkResponse({ type: OverviewDailyResponseDto })
  async overviewDaily(@Query() query: OverviewDailyQueryDto) {
    return overviewDailyBody(await this.admin.overviewDaily({ from: query.from, to: query.to }));
  }

  @Get('audit-log')
  @ApiOkResponse({ type: AuditLogResponseDto })
  async auditLog(@Query() query: AuditLogQueryDto) {
    return auditLogBody(await this.admin.auditLog({ limit: query.limit, cursor: query.cursor }));
  }

  @Get('contributors')
  @ApiOkResponse({ type: ContributorListResponseDto })
  async contributors(@Query() query: ContributorListQueryDto) {
    return contributorPageBody(await this.admin.listContributors({ sort: query.sort, limit: query.limit, cursor: query.cursor, search: query.q }));
  }

  /** 201 when applied, 200 with Idempotent-Replayed: true when the same reference and payload repeat. */
  @Post('contributors/:id/adjustments')
  @ApiCreatedResponse({ type: AdjustmentResponseDto })
  async adjust(
    @CurrentPrincipal() actor: Principal,
    @Param('id', idParam('id')) id: string,
    @Body() body: AdjustmentBodyDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    const result = await this.adjustments.adjust(actor, {
      contributorId: id,
      amountAtto: body.amount_usd,
      reason: body.reason,
      reference: body.reference,
    });
    res.status(result.replayed ? 200 : 201);
    if (result.replayed) res.header('Idempotent-Replayed', 'true');
    return adjustmentBody(result.record);
  }
}
