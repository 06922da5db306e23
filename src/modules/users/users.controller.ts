import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { idSchema } from '../../common/validation/fields.js';
import { validationFailed } from '../../common/errors/index.js';
import type { Principal } from '../auth/auth.types.js';
import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { Roles } from '../auth/roles.decorator.js';
import { CreditDto } from './users.schemas.js';
import { UsersService, type UserBalance } from './users.service.js';

function parseUserId(id: string): string {
  const parsed = idSchema.safeParse(id);
  if (!parsed.success) throw validationFailed([{ field: 'id', message: parsed.error.issues[0]?.message ?? 'invalid' }]);
  return parsed.data;
}

function balanceBody(balance: UserBalance) {
  return {
    user_id: balance.userId,
    balance_usd: formatAttoAsUsd(balance.balanceAtto),
    held_usd: formatAttoAsUsd(balance.heldAtto),
    available_usd: formatAttoAsUsd(balance.availableAtto),
  };
}

@ApiTags('users')
@ApiBearerAuth()
@Controller('v1')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post('admin/users/:id/credits')
  @Roles('admin')
  async credit(@CurrentPrincipal() actor: Principal, @Param('id') id: string, @Body() body: CreditDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { balance, replayed } = await this.users.credit(actor, {
      userId: parseUserId(id),
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
  async balance(@Param('id') id: string) {
    return balanceBody(await this.users.balance(parseUserId(id)));
  }
}
