// The stream and response use cases: reassemble a completed call's body in its wire format, plan
// its billing, store it like a usage event, and offer it to the usage audit.
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DomainError, validationFailed } from '../../common/errors/index.js';
import type { StreamedSignature } from '../auth/signed-request-verifier.js';
import { UsageService } from '../usage/usage.service.js';
import type { StoredEvent } from '../usage/usage.types.js';
import type { StreamDetails } from '../usage/usage-event.js';
import { comparableReportedTokens, completionTextsOf, promptAndReasoningOf } from '../usage-audit/usage-audit-counter.js';
import { UsageAuditProducer } from '../usage-audit/usage-audit.producer.js';
import type { ReassembledStream } from './reassembler-types.js';
import { reassembleResponse } from './response-reassembler.js';
import { StreamReassembler } from './sse-reassembler.js';
import { estimateInputOf, planStreamBilling, type StreamQuery } from './stream-billing.js';
import { estimateCompletionTokensYielding } from './token-estimator.js';

export interface BilledCall {
  result: { event: StoredEvent; replayed: boolean };
  details: StreamDetails;
}

@Injectable()
export class StreamsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageService,
    private readonly audit: UsageAuditProducer,
  ) {}

  /** A completed streamed call's SSE body, read as it arrives. */
  async ingestStream(query: StreamQuery, body: AsyncIterable<Buffer>, drain: () => void, signature: StreamedSignature | null): Promise<BilledCall> {
    const { stream, sha256 } = await this.readStream(query, body, drain, signature);
    if (stream.error?.source === 'limit') throw new DomainError('payload_too_large', stream.error.message);
    // A signed key's body is verified in full before anything is planned or stored.
    await signature?.complete();
    if (stream.format === null || stream.error?.source === 'format') {
      const why = stream.error ? `stream error: ${stream.error.message}` : 'no event of a known format';
      throw new DomainError('unsupported_stream_format', 'the body is not a stream of a known format (openai-chat, openai-responses, anthropic-messages, gemini)', [{ field: '(body)', message: why }]);
    }
    return this.bill(stream, query, sha256);
  }

  /** A completed call's non-streamed response body (already parsed JSON, and its bytes). */
  async ingestResponse(query: StreamQuery, body: unknown, bytes: Buffer | undefined): Promise<BilledCall> {
    const read = reassembleResponse(body, query.format);
    if (!read.ok) throw new DomainError('unsupported_response_format', 'the body is not a response of a known format (openai-chat, openai-responses, anthropic-messages, gemini)', [{ field: '(body)', message: read.message }]);
    const sha256 = createHash('sha256').update(bytes ?? JSON.stringify(body)).digest('hex');
    return this.bill(read.stream, query, sha256);
  }

  private async bill(stream: ReassembledStream, query: StreamQuery, sha256: string): Promise<BilledCall> {
    // Tokenizing a large completion takes a while: in slices, so other requests are served meanwhile.
    const toEstimate = estimateInputOf(stream, query);
    const estimate = toEstimate ? await estimateCompletionTokensYielding(toEstimate) : undefined;
    const plan = planStreamBilling(stream, query, sha256, estimate);
    if (!plan.ok) throw validationFailed(plan.issues, plan.message);
    const parsed = this.usage.parse(plan.payload, 'stream', plan.details);
    if ('issues' in parsed) throw validationFailed(parsed.issues, 'stream usage is not billable');
    const result = await this.usage.ingestOne(parsed.event);
    if (!result.replayed && this.config.USAGE_AUDIT_ENABLED) this.offerToAudit(stream, result.event, query.prompt_tokens);
    return { result, details: result.event.stream ?? plan.details };
  }

  /**
   * The one call into the usage audit (every format): a newly stored call whose provider reported
   * its usage. O(1) here: the texts are references to strings already built; the audit counts them
   * in the worker.
   */
  private offerToAudit(stream: ReassembledStream, event: { eventId: string; contributorId: string; model: string; occurredAt: Date }, gatewayPromptTokens: number | undefined): void {
    const reported = comparableReportedTokens(stream);
    if (reported === null) return;
    this.audit.offer({
      event_id: event.eventId,
      contributor_id: event.contributorId,
      model: event.model,
      occurred_at: event.occurredAt.toISOString(),
      reported_tokens: reported,
      texts: completionTextsOf(stream),
      ...promptAndReasoningOf(stream, gatewayPromptTokens),
    });
  }

  private async readStream(query: StreamQuery, body: AsyncIterable<Buffer>, drain: () => void, signature: StreamedSignature | null) {
    const reassembler = new StreamReassembler(undefined, query.format);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > this.config.STREAM_BODY_LIMIT_BYTES) {
        drain();
        throw new DomainError('payload_too_large', `stream body exceeds ${this.config.STREAM_BODY_LIMIT_BYTES} bytes`);
      }
      hash.update(chunk);
      signature?.update(chunk);
      reassembler.push(chunk);
    }
    return { stream: reassembler.end(), sha256: hash.digest('hex') };
  }
}
