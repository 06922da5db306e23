import { Controller, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest, FastifyReply } from 'fastify';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { mediaType } from '../../common/http/body-parsers.js';
import { DomainError, validationFailed, zodIssuesToFields } from '../../common/errors/index.js';
import { externalIdSchema, idSchema, modelSchema, timestampSchema, TOKENS_MAX } from '../../common/validation/fields.js';
import { RateLimited } from '../auth/rate-limited.decorator.js';
import { Roles } from '../../common/auth/roles.decorator.js';
import { streamedSignatureOf, type StreamedSignature } from '../auth/signed-request-verifier.js';
import { sendEvent } from '../usage/usage.controller.js';
import { priceVariantSchema } from '../pricing/pricing.schemas.js';
import { UsageService } from '../usage/usage.service.js';
import { comparableReportedTokens, completionTextsOf } from '../usage-audit/usage-audit-counter.js';
import { UsageAuditProducer } from '../usage-audit/usage-audit.producer.js';
import type { ReassembledStream } from './reassembler-types.js';
import { StreamReassembler } from './sse-reassembler.js';
import { estimateInputOf, planStreamBilling } from './stream-billing.js';
import { estimateCompletionTokensYielding } from './token-estimator.js';

const streamQuerySchema = z
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
    // The variant to bill at; without it, the stream's service_tier decides (default: standard).
    price_variant: priceVariantSchema.optional(),
  })
  .strict();

@ApiTags('usage events')
@ApiBearerAuth()
@Controller('v1/usage-events')
export class StreamsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageService,
    private readonly audit: UsageAuditProducer,
  ) {}

  /** Bills a completed chat-completion stream from its raw SSE body, read as it arrives. */
  @Post('stream')
  @Roles('gateway', 'admin')
  @RateLimited('ingest')
  @ApiConsumes('text/event-stream')
  @ApiQuery({ name: 'event_id', required: true, type: String })
  @ApiQuery({ name: 'user_id', required: true, type: String })
  @ApiQuery({ name: 'contributor_id', required: true, type: String })
  @ApiQuery({ name: 'model', required: false, type: String, description: 'default: the first `model` of the chunks' })
  @ApiQuery({ name: 'hold_id', required: false, type: String })
  @ApiQuery({ name: 'key_id', required: false, type: String, description: "the end user's key at the gateway (budgets per key)" })
  @ApiQuery({ name: 'occurred_at', required: false, type: String, description: 'ISO 8601; default now' })
  @ApiQuery({ name: 'prompt_tokens', required: false, type: 'integer', description: 'required when the stream carries no usage' })
  @ApiQuery({
    name: 'price_variant',
    required: false,
    type: String,
    description: 'variant to bill at; default: the stream\'s service_tier ("default" = "standard"), else "standard"',
  })
  async ingestStream(@Query() query: Record<string, unknown>, @Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    if (mediaType(req.headers['content-type']) !== 'text/event-stream') throw new DomainError('unsupported_media_type', 'body must be Content-Type: text/event-stream');
    const parsedQuery = streamQuerySchema.safeParse(query);
    if (!parsedQuery.success) throw validationFailed(zodIssuesToFields(parsedQuery.error));

    const signature = streamedSignatureOf(req);
    const { stream, sha256 } = await this.readStream(req, signature);
    if (stream.error?.source === 'limit') throw new DomainError('payload_too_large', stream.error.message);
    // A signed key's body is verified in full before anything is planned or stored.
    await signature?.complete();
    // Tokenizing a large completion takes a while: in slices, so other requests are served meanwhile.
    const toEstimate = estimateInputOf(stream, parsedQuery.data);
    const estimate = toEstimate ? await estimateCompletionTokensYielding(toEstimate) : undefined;
    const plan = planStreamBilling(stream, parsedQuery.data, sha256, estimate);
    if (!plan.ok) throw validationFailed(plan.issues, plan.message);
    const parsed = this.usage.parse(plan.payload, 'stream', plan.details);
    if ('issues' in parsed) throw validationFailed(parsed.issues, 'stream usage is not billable');
    const result = await this.usage.ingestOne(parsed.event);
    if (!result.replayed && this.config.USAGE_AUDIT_ENABLED) this.offerToAudit(stream, result.event);
    return sendEvent(res, result, { stream: result.event.stream ?? plan.details });
  }

  /**
   * A newly stored stream whose provider reported its usage goes to the usage audit: O(1) here
   * (the texts are references to strings already built; the audit counts them in the worker).
   */
  private offerToAudit(stream: ReassembledStream, event: { eventId: string; contributorId: string; model: string; occurredAt: Date }): void {
    const reported = comparableReportedTokens(stream);
    if (reported === null) return;
    this.audit.offer({
      event_id: event.eventId,
      contributor_id: event.contributorId,
      model: event.model,
      occurred_at: event.occurredAt.toISOString(),
      reported_tokens: reported,
      texts: completionTextsOf(stream),
    });
  }

  private async readStream(req: FastifyRequest, signature: StreamedSignature | null) {
    const reassembler = new StreamReassembler();
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of req.raw as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > this.config.STREAM_BODY_LIMIT_BYTES) {
        req.raw.resume();
        throw new DomainError('payload_too_large', `stream body exceeds ${this.config.STREAM_BODY_LIMIT_BYTES} bytes`);
      }
      hash.update(chunk);
      signature?.update(chunk);
      reassembler.push(chunk);
    }
    return { stream: reassembler.end(), sha256: hash.digest('hex') };
  }
}
