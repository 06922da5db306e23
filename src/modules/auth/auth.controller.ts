import { Body, Controller, Delete, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { AuthService } from './auth.service.js';
import { createdKeyBody } from './auth.presenter.js';
import { ApiKeyCreatedResponseDto, CreateApiKeyDto } from './auth.schemas.js';
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
