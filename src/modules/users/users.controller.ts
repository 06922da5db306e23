import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { idSchema } from '../../common/validation/fields.js';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { balanceBody, listedUserBody } from './users.presenter.js';
import { CreditDto, ListUsersQueryDto, UserIdParamDto, UserListResponseDto } from './users.schemas.js';
import { UsersService } from './users.service.js';

const userCursorSchema = z.object({ id: idSchema });

@ApiTags('users')
@ApiBearerAuth()
@Controller('v1')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  /** Users with their balances, by id (the console's users screen). */
  @Get('admin/users')
  @Roles('admin')
  @ApiOkResponse({ type: UserListResponseDto })
  async list(@Query() query: ListUsersQueryDto) {
    const rows = await this.users.list({ q: query.q, limit: query.limit, afterId: decodeCursor(query.cursor, userCursorSchema)?.id ?? null });
    const last = rows.at(-1);
    return { data: rows.map(listedUserBody), next_cursor: rows.length === query.limit && last ? encodeCursor({ id: last.userId }) : null };
  }

  @Post('admin/users/:id/credits')
  @Roles('admin')
  // Body before path, as the handler checked them before (a request wrong in both reports the body first).
  async credit(@CurrentPrincipal() actor: Principal, @Body() body: CreditDto, @Param() params: UserIdParamDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { balance, replayed } = await this.users.credit(actor, {
      userId: params.id,
      amountAtto: body.amount_usd,
      reference: body.reference,
      reason: body.reason ?? null,
      grant: body.grant ? { expiresAt: new Date(body.grant.expires_at), name: body.grant.name ?? null } : null,
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
