import { Controller, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest, FastifyReply } from 'fastify';
import { z } from 'zod';
import { mediaType } from '../../common/http/body-parsers.js';
import { DomainError, validationFailed, zodIssuesToFields } from '../../common/errors/index.js';
import { externalIdSchema, idSchema, modelSchema, timestampSchema, TOKENS_MAX } from '../../common/validation/fields.js';
import { RateLimited } from '../auth/rate-limited.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { streamedSignatureOf } from '../auth/signed-request-verifier.js';
import { sendEvent } from '../usage/usage.controller.js';
import { priceVariantSchema } from '../pricing/pricing.schemas.js';
import type { StreamQuery } from './stream-billing.js';
import { STREAM_FORMATS, isStreamFormat } from './stream-format.js';
import { StreamsService } from './streams.service.js';

const callQuerySchema = z
  .object({
    event_id: externalIdSchema,
    user_id: idSchema,
    contributor_id: idSchema,
    model: modelSchema.optional(),
    hold_id: externalIdSchema.optional(),
    key_id: externalIdSchema.optional(),
    occurred_at: timestampSchema.optional(),
    prompt_tokens: z
      .string()
      .regex(/^\d{1,10}$/, 'must be a non-negative integer')
      .transform(Number)
      .refine((n) => n <= TOKENS_MAX, `must be at most ${TOKENS_MAX}`)
      .optional(),
    // The variant requested: the body's service_tier may lower it, never raise it.
    price_variant: priceVariantSchema.optional(),
    // Checked apart: an unknown format is its own 400 code, not a validation failure.
    format: z.string().optional(),
  })
  .strict();

/** The query of both routes; an unknown `format` is 400 with the route's own code. */
function parseCallQuery(query: Record<string, unknown>, unknownFormat: 'unsupported_stream_format' | 'unsupported_response_format'): StreamQuery {
  const parsed = callQuerySchema.safeParse(query);
  if (!parsed.success) throw validationFailed(zodIssuesToFields(parsed.error));
  const { format, ...rest } = parsed.data;
  if (format === undefined) return rest;
  if (!isStreamFormat(format)) throw new DomainError(unknownFormat, `format must be one of ${STREAM_FORMATS.join(', ')}`, [{ field: 'format', message: 'unknown format' }]);
  return { ...rest, format };
}

const FORMAT_DESCRIPTION = `${STREAM_FORMATS.join(' | ')}; default: detected from the body`;

/** The query parameters both routes take. */
function CallQueries(): MethodDecorator {
  const decorators = [
    ApiQuery({ name: 'event_id', required: true, type: String }),
    ApiQuery({ name: 'user_id', required: true, type: String }),
    ApiQuery({ name: 'contributor_id', required: true, type: String }),
    ApiQuery({ name: 'model', required: false, type: String, description: 'the model billed; default: the model the body names' }),
    ApiQuery({ name: 'hold_id', required: false, type: String }),
    ApiQuery({ name: 'key_id', required: false, type: String, description: "the end user's key at the gateway (budgets per key)" }),
    ApiQuery({ name: 'occurred_at', required: false, type: String, description: 'ISO 8601; default now' }),
    ApiQuery({ name: 'prompt_tokens', required: false, type: 'integer', description: 'required when the body carries no usage' }),
    ApiQuery({ name: 'price_variant', required: false, type: String, description: 'the variant requested (default "standard"); the body\'s service_tier is billed only when it is not dearer, else the event is marked variant_claimed' }),
    ApiQuery({ name: 'format', required: false, enum: [...STREAM_FORMATS], description: FORMAT_DESCRIPTION }),
  ];
  return (target, key, descriptor) => {
    for (const decorator of decorators) decorator(target, key, descriptor);
  };
}

@ApiTags('usage events')
@ApiBearerAuth()
@Controller('v1/usage-events')
export class StreamsController {
  constructor(private readonly streams: StreamsService) {}

  /** Bills a completed streamed call from its raw SSE body (any wire format), read as it arrives. */
  @Post('stream')
  @Roles('gateway', 'admin')
  @RateLimited('ingest')
  @ApiConsumes('text/event-stream')
  @CallQueries()
  async ingestStream(@Query() query: Record<string, unknown>, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    if (mediaType(req.headers['content-type']) !== 'text/event-stream') throw new DomainError('unsupported_media_type', 'body must be Content-Type: text/event-stream');
    const parsed = parseCallQuery(query, 'unsupported_stream_format');
    const billed = await this.streams.ingestStream(parsed, req.raw as AsyncIterable<Buffer>, () => req.raw.resume(), streamedSignatureOf(req));
    return sendEvent(res, billed.result, { stream: billed.details });
  }

  /** Bills a completed non-streamed call from its response body (any wire format). */
  @Post('response')
  @Roles('gateway', 'admin')
  @RateLimited('ingest')
  @ApiConsumes('application/json')
  @ApiBody({ description: 'a chat.completion, a Responses `response` object, an Anthropic `message` or a Gemini GenerateContentResponse, as the upstream answered', schema: { type: 'object' } })
  @CallQueries()
  async ingestResponse(@Query() query: Record<string, unknown>, @Req() req: FastifyRequest & { rawBody?: Buffer }, @Res({ passthrough: true }) res: FastifyReply) {
    const parsed = parseCallQuery(query, 'unsupported_response_format');
    const billed = await this.streams.ingestResponse(parsed, req.body, req.rawBody ?? undefined);
    return sendEvent(res, billed.result, { stream: billed.details });
  }
}
