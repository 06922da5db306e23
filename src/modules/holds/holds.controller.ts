import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RateLimited } from '../auth/rate-limited.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { holdBody } from './holds.presenter.js';
import { CreateHoldDto } from './holds.schemas.js';
import { HoldsService } from './holds.service.js';
import { idParam } from '../../common/validation/id-param.pipe.js';


@ApiTags('holds')
@ApiBearerAuth()
@Controller('v1/holds')
@Roles('gateway', 'admin')
export class HoldsController {
  constructor(private readonly holds: HoldsService) {}

  @Post()
  @RateLimited('ingest')
  async create(@Body() body: CreateHoldDto, @Res({ passthrough: true }) res: FastifyReply) {
    const { hold, replayed } = await this.holds.create({
      holdId: body.hold_id,
      userId: body.user_id,
      amountAtto: body.amount_usd,
      expiresInSeconds: body.expires_in_seconds,
      keyId: body.key_id ?? null,
      model: body.model ?? null,
    });
    res.status(replayed ? 200 : 201);
    if (replayed) res.header('Idempotent-Replayed', 'true');
    return holdBody(hold);
  }

  @Post(':hold_id/release')
  @HttpCode(200)
  async release(@Param('hold_id', idParam('hold_id')) holdId: string) {
    return holdBody(await this.holds.release(holdId));
  }

  @Get(':hold_id')
  async get(@Param('hold_id', idParam('hold_id')) holdId: string) {
    return holdBody(await this.holds.get(holdId));
  }
}
