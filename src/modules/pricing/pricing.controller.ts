import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExtraModels, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyRequest, FastifyReply } from 'fastify';
import { priceDraftFromBody, priceTermsToJson } from './price-terms.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { CurrentPrincipal } from '../../common/auth/principal.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { toGenaiImportJson, toLitellmImportJson } from './price-import.presenter.js';
import {
  CreatePriceDto,
  GenaiPricesImportResponseDto,
  ImportGenaiPricesDto,
  ImportPricesQueryDto,
  ListPricesQueryDto,
  PriceImportResponseDto,
  PriceListResponseDto,
  PriceResponseDto,
  PriceVersionsResponseDto,
  type CreatePriceBody,
  type PriceJson,
} from './pricing.schemas.js';
import { PricingService, type PriceRecord } from './pricing.service.js';
import { PRICE_IMPORT_BODY_LIMIT_BYTES, readRawJsonBody } from './raw-json-body.js';

@ApiTags('admin: prices')
@ApiBearerAuth()
@Controller('v1/admin/prices')
@Roles('admin')
export class PricingController {
  constructor(private readonly pricing: PricingService) {}

  @Post()
  @ApiResponse({ status: 201, type: PriceResponseDto, description: 'version created' })
  @ApiResponse({ status: 200, type: PriceResponseDto, description: 'identical version already existed (replay)' })
  @ApiResponse({ status: 409, description: 'a different version exists at this (model, effective_from)' })
  async create(@CurrentPrincipal() actor: Principal, @Body() body: CreatePriceDto, @Res({ passthrough: true }) res: FastifyReply): Promise<PriceJson> {
    const result = await this.pricing.createPrice(actor, priceDraftFromBody(body as CreatePriceBody));
    res.status(result.created ? 201 : 200);
    return toPriceJson(result.price);
  }

  /**
   * Without `model`: per (model, variant), the version in force now (with `next`, the earliest
   * scheduled one), and under `upcoming` those whose first version is still in the future.
   * With `model`: all its versions, every variant, oldest first per variant.
   */
  @Get()
  @ApiExtraModels(PriceListResponseDto, PriceVersionsResponseDto)
  @ApiResponse({
    status: 200,
    description: 'PriceListResponse without ?model, PriceVersionsResponse with it',
    schema: { oneOf: [{ $ref: getSchemaPath(PriceListResponseDto) }, { $ref: getSchemaPath(PriceVersionsResponseDto) }] },
  })
  async list(@Query() query: ListPricesQueryDto) {
    if (query.model !== undefined) {
      return { data: (await this.pricing.listVersions(query.model)).map(toPriceJson) };
    }
    const summary = await this.pricing.listCurrent();
    return {
      data: summary.inForce.map(({ current, next }) => ({ ...toPriceJson(current), next: next ? toPriceJson(next) : null })),
      upcoming: summary.upcoming.map(toPriceJson),
    };
  }

  /** Body: LiteLLM's model_prices_and_context_window.json, read raw so numbers stay exact. */
  @Post('import')
  @ApiQuery({ name: 'effective_from', required: false, description: 'RFC 3339; defaults to now' })
  @ApiBody({ description: "LiteLLM's model_prices_and_context_window.json", schema: { type: 'object', additionalProperties: true } })
  @ApiResponse({ status: 201, type: PriceImportResponseDto, description: 'at least one version created' })
  @ApiResponse({ status: 200, type: PriceImportResponseDto, description: 'nothing new (every model unchanged or skipped)' })
  async import(
    @CurrentPrincipal() actor: Principal,
    @Query() query: ImportPricesQueryDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ) {
    const documentText = await readRawJsonBody(req, PRICE_IMPORT_BODY_LIMIT_BYTES);
    const result = await this.pricing.importLitellm(actor, { documentText, effectiveFrom: query.effective_from });
    res.status(result.imported > 0 ? 201 : 200);
    return toLitellmImportJson(result);
  }

  /** @pydantic/genai-prices' bundled price history, as dated versions that only fill in the past. */
  @Post('import/genai-prices')
  @ApiResponse({ status: 201, type: GenaiPricesImportResponseDto, description: 'at least one version created' })
  @ApiResponse({ status: 200, type: GenaiPricesImportResponseDto, description: 'nothing new' })
  async importGenaiPrices(@CurrentPrincipal() actor: Principal, @Body() body: ImportGenaiPricesDto, @Res({ passthrough: true }) res: FastifyReply) {
    const result = await this.pricing.importGenaiPrices(actor, { models: body.models });
    res.status(result.imported > 0 ? 201 : 200);
    return toGenaiImportJson(result);
  }
}

export function toPriceJson(price: PriceRecord): PriceJson {
  return {
    id: price.id.toString(),
    model: price.model,
    variant: price.variant,
    ...priceTermsToJson(price),
    effective_from: price.effectiveFrom.toISOString(),
    source: price.source,
    created_at: price.createdAt.toISOString(),
  };
}
