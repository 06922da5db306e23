import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { notFound } from '../../common/errors/index.js';
import { assertCanReadContributor } from '../auth/access.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { parseOr400 } from '../../common/validation/parse-or-400.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import type { EndpointScope } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { endpointIdPipe } from './webhooks.controller.js';
import { deliveriesCursor, deliveriesPage, deliveryJson, endpointJson, parseDeliveryId } from './webhooks.presenter.js';
import { createContributorWebhookSchema, CreateContributorWebhookDto, deliveriesQuerySchema, WebhookCreatedResponseDto, WebhookDeliveryListResponseDto, WebhookDeliveryResponseDto, WebhookEndpointResponseDto, WebhookListResponseDto } from './webhooks.schemas.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

/**
 * A contributor's own endpoints (a contributor key for itself, an admin for anyone): only payout.*
 * and settlement.* events, and only those about this contributor.
 */
@ApiTags('contributor webhooks')
@ApiBearerAuth()
@Controller('v1/contributors/:id/webhooks')
@Roles('admin', 'contributor')
export class ContributorWebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  private scope(principal: Principal, contributorId: string): EndpointScope {
    assertCanReadContributor(principal, contributorId);
    return { kind: 'contributor', contributorId };
  }

  @Post()
  @ApiBody({ type: CreateContributorWebhookDto })
  @ApiCreatedResponse({ type: WebhookCreatedResponseDto })
  async create(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Body() raw: unknown) {
    this.scope(actor, contributorId);
    const body = parseOr400(createContributorWebhookSchema, raw);
    const { endpoint, secret } = await this.endpoints.create(actor, { url: body.url, events: body.events, description: body.description, contributorId });
    return { ...endpointJson(endpoint), secret };
  }

  @Get()
  @ApiOkResponse({ type: WebhookListResponseDto })
  async list(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string) {
    return { data: (await this.endpoints.list(this.scope(actor, contributorId))).map(endpointJson), next_cursor: null };
  }

  @Get(':webhook_id')
  @ApiOkResponse({ type: WebhookEndpointResponseDto })
  async get(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Param('webhook_id', endpointIdPipe()) id: string) {
    return endpointJson(await this.endpoints.get(id, this.scope(actor, contributorId)));
  }

  @Delete(':webhook_id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Param('webhook_id', endpointIdPipe()) id: string) {
    await this.endpoints.remove(actor, id, this.scope(actor, contributorId));
  }

  /** Back in service after being disabled (its disabled_reason said why). */
  @Post(':webhook_id/enable')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookEndpointResponseDto })
  async enable(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Param('webhook_id', endpointIdPipe()) id: string) {
    return endpointJson(await this.endpoints.enable(actor, id, this.scope(actor, contributorId)));
  }

  @Get(':webhook_id/deliveries')
  @ApiOkResponse({ type: WebhookDeliveryListResponseDto })
  @ApiQuery({ name: 'limit', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  async deliveries(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Param('webhook_id', endpointIdPipe()) id: string, @Query() rawQuery: unknown) {
    const scope = this.scope(actor, contributorId);
    const query = parseOr400(deliveriesQuerySchema, rawQuery);
    return deliveriesPage(await this.endpoints.deliveriesOf(id, scope, query.limit, deliveriesCursor(query.cursor)), query.limit);
  }

  @Post(':webhook_id/deliveries/:delivery_id/retry')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookDeliveryResponseDto })
  async retry(@CurrentPrincipal() actor: Principal, @Param('id', idParam('id')) contributorId: string, @Param('webhook_id', endpointIdPipe()) id: string, @Param('delivery_id') deliveryIdText: string) {
    const scope = this.scope(actor, contributorId);
    const deliveryId = parseDeliveryId(deliveryIdText);
    if (deliveryId === null) throw notFound('delivery');
    return deliveryJson(await this.endpoints.retry(actor, id, deliveryId, scope));
  }
}
