import { Body, Controller, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '../../common/auth/roles.decorator.js';
import { alertsBody, autoTopupBody } from './spend.presenter.js';
import { AutoTopupBodyDto, BalanceAlertsBodyDto, TopupFailureBodyDto, TopupRequestParamsDto, UserIdParamDto } from './spend.schemas.js';
import { BalanceWatchService } from './balance-watch.service.js';

/** Balance thresholds and auto top-up (api.md "Spend controls (users)"). */
@ApiTags('spend controls')
@ApiBearerAuth()
@Controller('v1')
export class SpendControlsController {
  constructor(private readonly watch: BalanceWatchService) {}

  @Put('admin/users/:id/alerts')
  @Roles('admin')
  async putAlerts(@Param() params: UserIdParamDto, @Body() body: BalanceAlertsBodyDto) {
    return alertsBody(params.id, await this.watch.putAlerts(params.id, body.balance_below_usd));
  }

  @Get('users/:id/alerts')
  @Roles('admin', 'gateway')
  async alerts(@Param() params: UserIdParamDto) {
    return alertsBody(params.id, await this.watch.alerts(params.id));
  }

  @Put('admin/users/:id/auto-topup')
  @Roles('admin')
  async putAutoTopup(@Param() params: UserIdParamDto, @Body() body: AutoTopupBodyDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { state, created } = await this.watch.putAutoTopup({
      userId: params.id,
      belowAtto: body.below_usd,
      amountAtto: body.amount_usd,
      maxPerMonthAtto: body.max_per_month_usd,
      enabled: body.enabled ?? true,
    });
    res.status(created ? 201 : 200);
    return autoTopupBody(state);
  }

  @Get('users/:id/auto-topup')
  @Roles('admin', 'gateway')
  async autoTopup(@Param() params: UserIdParamDto) {
    return autoTopupBody(await this.watch.autoTopup(params.id));
  }

  @Post('admin/users/:id/auto-topup/requests/:request_id/fail')
  @Roles('admin')
  @HttpCode(200)
  async fail(@Param() params: TopupRequestParamsDto, @Body() body: TopupFailureBodyDto) {
    return autoTopupBody(await this.watch.failRequest({ userId: params.id, requestId: params.request_id, reason: body.reason }));
  }
}
