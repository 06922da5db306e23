import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { balanceBody } from './users.presenter.js';
import { CreditDto, UserIdParamDto } from './users.schemas.js';
import { UsersService } from './users.service.js';



@ApiTags('users')
@ApiBearerAuth()
@Controller('v1')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post('admin/users/:id/credits')
  @Roles('admin')
  // Body before path, as the handler checked them before (a request wrong in both reports the body first).
  async credit(@CurrentPrincipal() actor: Principal, @Body() body: CreditDto, @Param() params: UserIdParamDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { balance, replayed } = await this.users.credit(actor, {
      userId: params.id,
      amountAtto: body.amount_usd,
      reference: body.reference,
      reason: body.reason ?? null,
    });
    res.status(replayed ? 200 : 201);
    if (replayed) res.header('Idempotent-Replayed', 'true');
    return balanceBody(balance);
  }

  @Get('users/:id/balance')
  @Roles('admin', 'gateway')
  async balance(@Param() params: UserIdParamDto) {
    return balanceBody(await this.users.balance(params.id));
  }
}
