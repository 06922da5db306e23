import { Body, Controller, Get, Inject, Param, Put, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { contributorBalancesToJson } from '../earnings/contributor-balances.js';
import { EarningsService } from '../earnings/earnings.service.js';
import {
  ContributorIdParamDto,
  ContributorResponseDto,
  ContributorWithBalancesResponseDto,
  PutContributorDto,
  type ContributorJson,
} from './contributors.schemas.js';
import { toContributorJson } from './contributors.presenter.js';
import { ContributorsService } from './contributors.service.js';

// The paginated list with balances (GET /v1/admin/contributors) lives in the admin module. GET :id
// adds the balances from the earnings module (stored ledger balances).
@ApiTags('admin: contributors')
@ApiBearerAuth()
@Controller('v1/admin/contributors')
@Roles('admin')
export class ContributorsController {
  constructor(
    private readonly contributors: ContributorsService,
    private readonly earnings: EarningsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Put(':id')
  @ApiResponse({ status: 201, type: ContributorResponseDto, description: 'registered' })
  @ApiResponse({ status: 200, type: ContributorResponseDto, description: 'updated (or unchanged)' })
  @ApiResponse({ status: 422, description: 'payout_address_refused: the zero address, the USDC token, the payout contract, the hot wallet, a deny-listed address, or contract code without allow_contract' })
  async put(
    @CurrentPrincipal() actor: Principal,
    @Param() params: ContributorIdParamDto,
    @Body() body: PutContributorDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ContributorJson> {
    const result = await this.contributors.putContributor(actor, {
      id: params.id,
      tier: body.tier,
      payoutAddress: body.payout_address,
      status: body.status,
      clearFlag: body.clear_flag,
      allowContract: body.allow_contract,
    });
    res.status(result.created ? 201 : 200);
    return toContributorJson(result.contributor, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS);
  }

  @Get(':id')
  @ApiResponse({ status: 200, type: ContributorWithBalancesResponseDto })
  async get(@Param() params: ContributorIdParamDto) {
    const [contributor, balances] = await Promise.all([this.contributors.getById(params.id), this.earnings.contributorBalances(params.id)]);
    const balancesJson = contributorBalancesToJson(balances);
    // Flat like GET /v1/contributors/:id/balance (api.md: "as in /balance") and nested like the list.
    return { ...toContributorJson(contributor, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS), ...balancesJson, balances: balancesJson };
  }
}
