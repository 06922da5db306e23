import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { cursorMicrosSchema, decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { AuthService } from './auth.service.js';
import { createdKeyBody, listedKeyBody } from './auth.presenter.js';
import { ApiKeyCreatedResponseDto, ApiKeyListResponseDto, CreateApiKeyDto, ListApiKeysQueryDto } from './auth.schemas.js';

const keyCursorSchema = z.object({ us: cursorMicrosSchema, id: z.string().uuid() });
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { DomainError } from '../../common/errors/index.js';

@ApiTags('admin: api keys')
@ApiBearerAuth()
@Controller('v1/admin/api-keys')
@Roles('admin')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /** Every key (revoked ones too, with revoked_at), newest first; never a key or a secret. */
  @Get()
  @ApiOkResponse({ type: ApiKeyListResponseDto })
  async list(@Query() query: ListApiKeysQueryDto) {
    const rows = await this.auth.listKeys({ role: query.role, contributorId: query.contributor_id }, query.limit, decodeCursor(query.cursor, keyCursorSchema));
    const last = rows.at(-1);
    return {
      data: rows.map(listedKeyBody),
      next_cursor: rows.length === query.limit && last ? encodeCursor({ us: last.createdUs, id: last.id }) : null,
    };
  }

  @Post()
  @ApiCreatedResponse({ type: ApiKeyCreatedResponseDto, description: 'the key is shown only here' })
  async create(@CurrentPrincipal() actor: Principal, @Body() body: CreateApiKeyDto) {
    const created = await this.auth.createKey(actor, {
      role: body.role,
      contributorId: body.contributor_id,
      name: body.name,
      signed: body.signed ?? false,
    });
    return createdKeyBody(created);
  }

  @Delete(':id')
  @HttpCode(204)
  async revoke(
    @CurrentPrincipal() actor: Principal,
    @Param('id', new ParseUUIDPipe({ exceptionFactory: () => new DomainError('not_found', 'api key not found') })) id: string,
  ) {
    await this.auth.revokeKey(actor, id);
  }
}
