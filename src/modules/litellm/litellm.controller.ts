import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DomainError } from '../../common/errors/index.js';
import { withRawJsonBytes } from '../../common/http/raw-body.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { RateLimited } from '../auth/rate-limited.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { litellmBodyPayloads, LitellmBodyRefused } from './litellm-body.js';
import { litellmPayloadSelection } from './litellm-payload.js';
import type { CompiledSelection } from './litellm-json-selection.js';
import {
  DeploymentParamsDto,
  DeploymentsResponseDto,
  LitellmPayloadDto,
  LitellmPushResponseDto,
  LitellmStatusResponseDto,
  MapDeploymentBodyDto,
  MapDeploymentResponseDto,
} from './litellm.schemas.js';
import { LitellmService } from './litellm.service.js';

@ApiTags('integrations: LiteLLM')
@ApiBearerAuth()
@Controller('v1')
export class LitellmController {
  /** Only the fields the mapping reads are built from a body (never the messages or the response text). */
  private readonly payloadSelection: CompiledSelection;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly litellm: LitellmService,
  ) {
    this.payloadSelection = litellmPayloadSelection(config.LITELLM_USER_FIELDS);
  }

  /**
   * What LiteLLM's generic_api callback POSTs: a JSON array of StandardLoggingPayload (json_array),
   * one payload (single) or NDJSON, always as application/json. 200 with one result per payload;
   * 413 past LITELLM_BODY_LIMIT_BYTES or LITELLM_MAX_PAYLOADS payloads.
   */
  @Post('integrations/litellm')
  @Roles('gateway', 'admin')
  @RateLimited('ingest')
  @HttpCode(200)
  @ApiBody({
    description: 'a JSON array of StandardLoggingPayload objects, one object, or NDJSON (one object a line); Content-Type: application/json',
    type: [LitellmPayloadDto],
  })
  @ApiOkResponse({ type: LitellmPushResponseDto })
  async push(@Req() req: FastifyRequest) {
    try {
      // Every payload mapped while the body is in hand (the plans hold copies only), then written.
      const plans = await withRawJsonBytes(req, this.config.LITELLM_BODY_LIMIT_BYTES, (bytes) => this.litellm.plan(litellmBodyPayloads(bytes, this.payloadSelection, this.config.LITELLM_MAX_PAYLOADS)));
      return { results: await this.litellm.push(plans) };
    } catch (error) {
      if (!(error instanceof LitellmBodyRefused)) throw error;
      if (error.why === 'too_many') throw new DomainError('payload_too_large', `request body holds more than LITELLM_MAX_PAYLOADS (${this.config.LITELLM_MAX_PAYLOADS}) payloads`);
      throw new DomainError('validation_failed', 'request body is neither JSON nor NDJSON', [{ field: '(body)', message: 'a JSON array, a JSON object or NDJSON' }]);
    }
  }

  @Get('admin/integrations/litellm/deployments')
  @Roles('admin')
  @ApiOkResponse({ type: DeploymentsResponseDto })
  async deployments() {
    const { mapped, unmapped } = await this.litellm.listDeployments();
    return {
      data: [
        ...mapped.map((d) => ({
          model_id: d.modelId,
          contributor_id: d.contributorId,
          unattributed_events: d.parked,
          created_at: d.createdAt.toISOString(),
          updated_at: d.updatedAt.toISOString(),
        })),
        ...unmapped.map((u) => ({ model_id: u.modelId, contributor_id: null, unattributed_events: u.parked, created_at: null, updated_at: null })),
      ],
    };
  }

  /** Maps a deployment to its contributor (audited) and bills the calls parked for it meanwhile. */
  @Put('admin/integrations/litellm/deployments/:model_id')
  @Roles('admin')
  @ApiOkResponse({ type: MapDeploymentResponseDto })
  async mapDeployment(
    @CurrentPrincipal() actor: Principal,
    @Param() params: DeploymentParamsDto,
    @Body() body: MapDeploymentBodyDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    const { deployment, billed, created } = await this.litellm.mapDeployment(actor, params.model_id, body.contributor_id);
    res.status(created ? 201 : 200);
    return {
      model_id: deployment.modelId,
      contributor_id: deployment.contributorId,
      unattributed_events: 0,
      created_at: deployment.createdAt.toISOString(),
      updated_at: deployment.updatedAt.toISOString(),
      billed_events: billed,
    };
  }

  @Get('admin/integrations/litellm/status')
  @Roles('admin')
  @ApiOkResponse({ type: LitellmStatusResponseDto })
  status() {
    return this.litellm.status();
  }
}
