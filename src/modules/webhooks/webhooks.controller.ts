import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, notFound } from '../../common/errors/index.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { webhookEventJsonSchemas } from './webhook-event-types.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { deliveriesCursor, deliveriesPage, deliveryJson, endpointJson, parseDeliveryId } from './webhooks.presenter.js';
import { CreateWebhookDto, DeliveriesQueryDto, WebhookCreatedResponseDto, WebhookDeliveryListResponseDto, WebhookDeliveryResponseDto, WebhookEndpointResponseDto, WebhookEventTypesResponseDto, WebhookListResponseDto } from './webhooks.schemas.js';

const ALL = { kind: 'all' } as const;
export const endpointIdPipe = () => new ParseUUIDPipe({ exceptionFactory: () => new DomainError('not_found', 'webhook not found') });

@ApiTags('admin: webhooks')
@ApiBearerAuth()
@Controller('v1/admin/webhooks')
@Roles('admin')
export class WebhooksController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @ApiCreatedResponse({ type: WebhookCreatedResponseDto })
  async create(@CurrentPrincipal() actor: Principal, @Body() body: CreateWebhookDto) {
    const { endpoint, secret } = await this.endpoints.create(actor, { url: body.url, events: body.events, description: body.description, contributorId: body.contributor_id ?? null });
    return { ...endpointJson(endpoint), secret };
  }

  @Get()
  @ApiOkResponse({ type: WebhookListResponseDto })
  async list() {
    return { data: (await this.endpoints.list(ALL)).map(endpointJson), next_cursor: null };
  }

  /** Every event type with the JSON Schema of its data and an example delivery body. */
  @Get('event-types')
  @ApiOkResponse({ type: WebhookEventTypesResponseDto })
  eventTypes() {
    return { data: webhookEventJsonSchemas() };
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookEndpointResponseDto })
  async get(@Param('id', endpointIdPipe()) id: string) {
    return endpointJson(await this.endpoints.get(id, ALL));
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() actor: Principal, @Param('id', endpointIdPipe()) id: string) {
    await this.endpoints.remove(actor, id, ALL);
  }

  /** Puts a disabled endpoint back in service (its disabled_reason said why it stopped). */
  @Post(':id/enable')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookEndpointResponseDto })
  async enable(@CurrentPrincipal() actor: Principal, @Param('id', endpointIdPipe()) id: string) {
    return endpointJson(await this.endpoints.enable(actor, id, ALL));
  }

  @Get(':id/deliveries')
  @ApiOkResponse({ type: WebhookDeliveryListResponseDto })
  async deliveries(@Param('id', endpointIdPipe()) id: string, @Query() query: DeliveriesQueryDto) {
    return deliveriesPage(await this.endpoints.deliveriesOf(id, ALL, query.limit, deliveriesCursor(query.cursor)), query.limit);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookDeliveryResponseDto })
  async retry(@CurrentPrincipal() actor: Principal, @Param('id', endpointIdPipe()) id: string, @Param('delivery_id') deliveryIdText: string) {
    const deliveryId = parseDeliveryId(deliveryIdText);
    if (deliveryId === null) throw notFound('delivery');
    return deliveryJson(await this.endpoints.retry(actor, id, deliveryId, ALL));
  }
}
