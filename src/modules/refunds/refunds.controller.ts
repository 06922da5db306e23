import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { refundBody, refundPageBody } from './refunds.presenter.js';
import { RefundBodyDto, RefundEventParamDto, RefundListQueryDto, RefundListResponseDto, RefundResponseDto } from './refunds.schemas.js';
import { RefundsService } from './refunds.service.js';

@ApiTags('admin: refunds')
@ApiBearerAuth()
@Controller('v1/admin')
@Roles('admin')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  /** 201 when applied, 200 with Idempotent-Replayed: true when the same refund_id and payload repeat. */
  @Post('usage-events/:event_id/refunds')
  @ApiCreatedResponse({ type: RefundResponseDto })
  async refund(@CurrentPrincipal() actor: Principal, @Param() params: RefundEventParamDto, @Body() body: RefundBodyDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { refund, replayed } = await this.refunds.refund(actor, {
      eventId: params.event_id,
      refundId: body.refund_id,
      amountAtto: body.amount_usd ?? null,
      reason: body.reason,
    });
    res.status(replayed ? 200 : 201);
    if (replayed) res.header('Idempotent-Replayed', 'true');
    return refundBody(refund);
  }

  @Get('refunds')
  @ApiOkResponse({ type: RefundListResponseDto })
  async list(@Query() query: RefundListQueryDto) {
    return refundPageBody(
      await this.refunds.list({ eventId: query.event_id, contributorId: query.contributor_id, userId: query.user_id }, query.limit, query.cursor),
    );
  }
}
