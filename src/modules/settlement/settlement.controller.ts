import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../../common/errors/index.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { ReconciliationService } from './payout/reconciliation.service.js';
import { reconciliationResolutionBody } from './reconciliation-resolution.presenter.js';
import { createdSettlementBody, settlementBody, settlementDetailBody } from './settlement.presenter.js';
import { SettlementQueryService } from './settlement-query.service.js';
import {
  CreatedSettlementResponseDto,
  CreateSettlementDto,
  ReconciliationResolutionResponseDto,
  ResolveReconciliationDto,
  SettlementDetailResponseDto,
  SettlementListResponseDto,
  SettlementPageQueryDto,
  SettlementResponseDto,
} from './settlement.schemas.js';
import { SettlementService } from './creation/settlement.service.js';

const settlementId = () => new ParseUUIDPipe({ exceptionFactory: () => new DomainError('not_found', 'settlement not found') });

@ApiTags('admin: settlements')
@ApiBearerAuth()
@Controller('v1/admin/settlements')
@Roles('admin')
export class SettlementController {
  constructor(
    private readonly settlements: SettlementService,
    private readonly queries: SettlementQueryService,
    private readonly reconciliation: ReconciliationService,
  ) {}

  /** 201 created (or dry run: computed, nothing moved); 200 `status: "empty"` when nobody qualifies. */
  @Post()
  @ApiResponse({ status: 201, type: CreatedSettlementResponseDto, description: 'created, or a dry run (settlement_id null)' })
  @ApiResponse({ status: 200, type: CreatedSettlementResponseDto, description: 'status "empty": nobody qualifies' })
  async create(@CurrentPrincipal() actor: Principal, @Body() body: CreateSettlementDto, @Res({ passthrough: true }) res: FastifyReply) {
    const result = await this.settlements.createSettlement({ trigger: 'admin', dryRun: body?.dry_run ?? false, actor });
    if (result.kind === 'empty') res.status(200);
    return createdSettlementBody(result);
  }

  @Get()
  @ApiOkResponse({ type: SettlementListResponseDto })
  async list(@Query() query: SettlementPageQueryDto) {
    const page = await this.queries.listSettlements(query.limit, query.cursor);
    return { data: page.data.map(settlementBody), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOkResponse({ type: SettlementDetailResponseDto })
  async get(@Param('id', settlementId()) id: string) {
    const { settlement, lines, txs } = await this.queries.getSettlement(id);
    return settlementDetailBody({ settlement, lines, txs });
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOkResponse({ type: SettlementResponseDto })
  async approve(@CurrentPrincipal() actor: Principal, @Param('id', settlementId()) id: string) {
    return settlementBody(await this.settlements.approve(id, actor));
  }

  /** Compares on-chain USDC Transfer events with the paid lines now, and stores the result. */
  @Post(':id/reconcile')
  @HttpCode(200)
  async reconcile(@CurrentPrincipal() actor: Principal, @Param('id', settlementId()) id: string) {
    return this.reconciliation.reconcileSettlement(id, actor);
  }

  /**
   * 201: an operator accepts the settlement's failed reconciliation with a reason (audited; the
   * stored reconciliation is not changed) and the ledger check stops counting it; 200 on a replay
   * for the same findings; 409 when there is no failed reconciliation to resolve.
   */
  @Post(':id/reconciliation/resolve')
  @ApiResponse({ status: 201, type: ReconciliationResolutionResponseDto, description: 'resolved' })
  @ApiResponse({ status: 200, type: ReconciliationResolutionResponseDto, description: 'replay for the same findings' })
  async resolveReconciliation(
    @CurrentPrincipal() actor: Principal,
    @Param('id', settlementId()) id: string,
    @Body() body: ResolveReconciliationDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    const { resolution, created } = await this.reconciliation.resolveFailure(id, body.reason, actor);
    res.status(created ? 201 : 200);
    return reconciliationResolutionBody(resolution);
  }
}
