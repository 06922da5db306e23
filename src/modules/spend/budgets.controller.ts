import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '../../common/auth/roles.decorator.js';
import { budgetBody } from './spend.presenter.js';
import { BudgetBodyDto, BudgetParamsDto, UserIdParamDto } from './spend.schemas.js';
import { BudgetsService } from './budgets.service.js';

@ApiTags('spend controls')
@ApiBearerAuth()
@Controller('v1')
export class BudgetsController {
  constructor(private readonly budgets: BudgetsService) {}

  @Put('admin/users/:id/budgets/:budget_id')
  @Roles('admin')
  async put(@Param() params: BudgetParamsDto, @Body() body: BudgetBodyDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { view, created } = await this.budgets.put({
      userId: params.id,
      budgetId: params.budget_id,
      limitAtto: body.limit_usd,
      period: body.period,
      keyId: body.key_id ?? null,
      model: body.model ?? null,
      action: body.action,
      alertAt: body.alert_at ?? [],
    });
    res.status(created ? 201 : 200);
    return budgetBody(view);
  }

  @Delete('admin/users/:id/budgets/:budget_id')
  @Roles('admin')
  @HttpCode(204)
  async delete(@Param() params: BudgetParamsDto): Promise<void> {
    await this.budgets.delete(params.id, params.budget_id);
  }

  @Get('users/:id/budgets')
  @Roles('admin', 'gateway')
  async list(@Param() params: UserIdParamDto) {
    return { data: (await this.budgets.list(params.id)).map(budgetBody) };
  }
}
