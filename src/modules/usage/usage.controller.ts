import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest, FastifyReply } from 'fastify';
import { z } from 'zod';
import { DomainError, validationFailed } from '../../common/errors/index.js';
import { RateLimited } from '../auth/rate-limited.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { repriceBody, usageEventBody, usageEventDetailBody } from './usage.presenter.js';
import { BATCH_EVENTS_MAX, RepriceResponseDto, UnpricedByModelResponseDto, UsageBatchBodyDto, UsageBatchDto, UsageEventDto } from './usage.schemas.js';
import { UsageService } from './usage.service.js';
import type { StoredEvent } from './usage.types.js';
import { idParam } from '../../common/validation/id-param.pipe.js';

/** Sends the api.md status for a stored event: 201 priced, 202 unpriced, 200 on replay. */
export function sendEvent(res: FastifyReply, result: { event: StoredEvent; replayed: boolean }, extra?: Record<string, unknown>) {
  if (result.replayed) {
    res.header('Idempotent-Replayed', 'true');
    res.status(200);
  } else {
    res.status(result.event.status === 'priced' ? 201 : 202);
  }
  // Without extra fields (every ingestion reply) the body is not copied again.
  return extra === undefined ? usageEventBody(result.event) : { ...usageEventBody(result.event), ...extra };
}

/** A batch costs one rate-limit token per event (at most a full batch), not one per request. */
export function batchEventsCost(request: FastifyRequest): number {
  const events = (request.body as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? Math.min(Math.max(events.length, 1), BATCH_EVENTS_MAX) : 1;
}

@ApiTags('usage events')
@ApiBearerAuth()
@Controller('v1')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Post('usage-events')
  @Roles('gateway', 'admin')
  @RateLimited('ingest')
  @ApiBody({ type: UsageEventDto })
  async ingest(@Body() body: UsageEventDto, @Res({ passthrough: true }) res: FastifyReply) {
    const parsed = this.usage.fromInput(body, 'api');
    if ('issues' in parsed) throw validationFailed(parsed.issues);
    return sendEvent(res, await this.usage.ingestOne(parsed.event));
  }

  @Post('usage-events/batch')
  @Roles('gateway', 'admin')
  @RateLimited('ingest', batchEventsCost)
  @HttpCode(200)
  @ApiBody({ type: UsageBatchDto })
  async ingestBatch(@Body() body: UsageBatchBodyDto) {
    return { results: await this.usage.ingestBatch(body.events) };
  }

  @Get('usage-events/:event_id')
  @Roles('gateway', 'admin')
  async get(@Param('event_id', idParam('event_id')) eventId: string) {
    try {
      return usageEventDetailBody(await this.usage.get(eventId));
    } catch (error) {
      // Not a usage event (yet): another module may hold it, e.g. a LiteLLM call parked unattributed.
      const pending = error instanceof DomainError && error.code === 'not_found' ? await this.usage.findPending(eventId) : null;
      if (pending) return pending;
      throw error;
    }
  }

  /** What is waiting for a price, per model: add those prices, then reprice. */
  @Get('admin/usage-events/unpriced-by-model')
  @Roles('admin')
  @ApiOkResponse({ type: UnpricedByModelResponseDto })
  async unpricedByModel() {
    const rows = await this.usage.unpricedByModel();
    return {
      data: rows.map((r) => ({
        model: r.model,
        events: r.events,
        first_occurred_at: r.firstOccurredAt.toISOString(),
        last_occurred_at: r.lastOccurredAt.toISOString(),
      })),
    };
  }

  @Post('admin/usage-events/reprice')
  @Roles('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: RepriceResponseDto })
  async reprice() {
    const result = await this.usage.reprice();
    return repriceBody(result);
  }
}
