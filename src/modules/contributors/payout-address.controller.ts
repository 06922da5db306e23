import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { assertCanReadContributor } from '../auth/access.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { parseOr400 } from '../../common/validation/parse-or-400.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import {
  ContributorResponseDto,
  payoutAddressChallengeQuerySchema,
  PayoutAddressChallengeResponseDto,
  PayoutAddressStateResponseDto,
  ProveAddressDto,
  proveAddressSchema,
} from './contributors.schemas.js';
import { payoutAddressState, toContributorJson } from './contributors.presenter.js';
import { ContributorsService } from './contributors.service.js';
import { PayoutAddressProofService } from './payout-address-proof.service.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

/** Payout-address ownership proof: a contributor key for itself (403 otherwise), an admin for anyone. */
@ApiTags('contributor trust')
@ApiBearerAuth()
@Controller('v1/contributors/:id/payout-address')
@Roles('admin', 'contributor')
export class PayoutAddressController {
  constructor(
    private readonly proofs: PayoutAddressProofService,
    private readonly contributors: ContributorsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiResponse({ status: 200, type: PayoutAddressStateResponseDto, description: 'the address, whether it is proven, and when it becomes payable' })
  async state(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string) {
    assertCanReadContributor(actor, contributorId);
    const contributor = await this.contributors.getById(contributorId);
    return { contributor_id: contributor.id, payout_address: contributor.payoutAddress, ...payoutAddressState(contributor, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS) };
  }

  @Get('challenge')
  @ApiResponse({ status: 200, type: PayoutAddressChallengeResponseDto, description: 'a single-use message to sign, valid 10 minutes' })
  @ApiQuery({ name: 'address', required: true, type: String, description: 'the payout address to prove (0x...)' })
  async challenge(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Query() raw: unknown) {
    assertCanReadContributor(actor, contributorId);
    const query = parseOr400(payoutAddressChallengeQuerySchema, raw);
    const challenge = await this.proofs.challenge(actor, contributorId, query.address);
    return { message: challenge.message, nonce: challenge.nonce, expires_at: challenge.expiresAt.toISOString() };
  }

  @Post()
  @HttpCode(200)
  @ApiResponse({ status: 200, type: ContributorResponseDto, description: 'the address is set and proven' })
  @ApiResponse({ status: 422, description: 'address_proof_invalid (wrong, foreign, replayed, expired or tampered proof: nothing changes), or payout_address_refused' })
  @ApiBody({ type: ProveAddressDto })
  async prove(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Body() raw: unknown) {
    assertCanReadContributor(actor, contributorId);
    const body = parseOr400(proveAddressSchema, raw);
    const contributor = await this.proofs.prove(actor, { contributorId, address: body.address, signature: body.signature, nonce: body.nonce });
    return toContributorJson(contributor, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS);
  }
}
