// ledgerMiddleware({ledger, attribution}) for the AI SDK's wrapLanguageModel (ai@6, middleware
// specification v3): reports the usage of each generateText / streamText call as a usage event
// (POST /v1/usage-events), from the provider's usage the AI SDK hands back. A stream that errors
// or that the caller aborts is billed too: on the usage it reached, else on an estimate of what it
// produced (gpt-tokenizer over the text, reasoning and tool input streamed so far, and the prompt);
// a call that produced nothing gives its hold back. x-ledger-* headers in the call's headers are
// attribution only and are removed before the provider sees them.
import type { LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { type Attribution, type AttributionFn, attributionFromHeaders, completeAttribution, holdIdFor, LEDGER_HEADER_PREFIX } from './attribution.js';
import type { LedgerClient } from './client.js';
import { countPromptTokens, countTextTokens } from './prompt-tokens.js';
import { RawUsage } from './raw-usage.js';
import { eventReport, type UsageEventBody } from './reports.js';

export interface LedgerMiddlewareOptions {
  ledger: LedgerClient;
  /** Who the call is billed to (given the call's options); without it the x-ledger-* headers must say. */
  attribution?: AttributionFn<LanguageModelV3CallOptions>;
}

const count = (value: number | undefined) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);

/** The AI SDK's usage (input/output totals with cache reads and reasoning) in the api.md usage kinds. */
export function usageFromAiSdk(usage: LanguageModelV3Usage): UsageEventBody['usage'] {
  const kinds: Record<string, number> = {
    prompt_tokens: count(usage.inputTokens.total),
    completion_tokens: count(usage.outputTokens.total),
    cached_tokens: count(usage.inputTokens.cacheRead),
    reasoning_tokens: count(usage.outputTokens.reasoning),
    cache_write_5m_tokens: count(usage.inputTokens.cacheWrite),
  };
  return Object.fromEntries(Object.entries(kinds).filter(([key, value]) => value > 0 || key === 'prompt_tokens' || key === 'completion_tokens')) as UsageEventBody['usage'];
}

function headersWithoutLedger(headers: LanguageModelV3CallOptions['headers']): LanguageModelV3CallOptions['headers'] {
  if (!headers) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith(LEDGER_HEADER_PREFIX)));
}

export function ledgerMiddleware(options: LedgerMiddlewareOptions): LanguageModelV3Middleware {
  const { ledger } = options;
  const attributionOf = async (params: LanguageModelV3CallOptions): Promise<Attribution> =>
    completeAttribution(attributionFromHeaders(params.headers as Record<string, string | undefined> | undefined), options.attribution ? await options.attribution(params) : undefined);

  const prepare = async (params: LanguageModelV3CallOptions) => {
    const attribution = await attributionOf(params);
    const holdId = attribution.hold_usd ? holdIdFor(attribution.event_id) : undefined;
    if (holdId) await ledger.createHold({ hold_id: holdId, user_id: attribution.user_id, amount_usd: attribution.hold_usd! });
    return { attribution, holdId };
  };

  const send = (attribution: Attribution, holdId: string | undefined, modelId: string, usage: UsageEventBody['usage'], metadata?: Record<string, unknown>) => {
    const body: UsageEventBody = {
      event_id: attribution.event_id,
      user_id: attribution.user_id,
      contributor_id: attribution.contributor_id,
      model: attribution.model ?? modelId,
      occurred_at: new Date().toISOString(),
      usage,
      ...(holdId ? { hold_id: holdId } : {}),
      ...(metadata ? { metadata } : {}),
    };
    return ledger.report(eventReport(body));
  };

  return {
    specificationVersion: 'v3',
    // The headers reach the provider's request; the attribution is read from `params` before this.
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const { attribution, holdId } = await prepare(params);
      params.headers = headersWithoutLedger(params.headers);
      let result;
      try {
        result = await doGenerate();
      } catch (error) {
        if (holdId) void ledger.track(ledger.releaseHold(holdId));
        throw error;
      }
      await send(attribution, holdId, model.modelId, usageFromAiSdk(result.usage));
      return result;
    },
    wrapStream: async ({ doStream, params, model }) => {
      const { attribution, holdId } = await prepare(params);
      params.headers = headersWithoutLedger(params.headers);
      // The provider's own events carry the usage so far (the AI SDK hands usage back only in `finish`).
      const callerWantsRaw = params.includeRawChunks === true;
      params.includeRawChunks = true;
      let streamed;
      try {
        streamed = await doStream();
      } catch (error) {
        if (holdId) void ledger.track(ledger.releaseHold(holdId));
        throw error;
      }
      const { stream, ...rest } = streamed;
      const modelName = attribution.model ?? model.modelId;
      let usage: LanguageModelV3Usage | undefined;
      const rawUsage = new RawUsage();
      let produced = '';
      let errored = false;
      let reported = false;
      const finish = (end: 'finished' | 'error' | 'aborted') => {
        if (reported) return;
        reported = true;
        if (usage && (usage.inputTokens.total !== undefined || usage.outputTokens.total !== undefined) && end === 'finished' && !errored) {
          void send(attribution, holdId, model.modelId, usageFromAiSdk(usage));
          return;
        }
        const ended = params.abortSignal?.aborted ? 'aborted' : errored || end === 'error' ? 'error' : end;
        const soFar = usage && usage.inputTokens.total !== undefined ? usageFromAiSdk(usage) : rawUsage.usage();
        // What was visibly produced is never billed below its estimate (a usage cut before its final count undercounts).
        const producedTokens = produced === '' ? 0 : countTextTokens(modelName, produced);
        if (soFar) {
          void send(attribution, holdId, model.modelId, { ...soFar, completion_tokens: Math.max(soFar.completion_tokens, producedTokens) }, { usage_source: 'provider', ended });
        } else if (producedTokens > 0) {
          // No usage reached us: what was produced is billed on an estimate, as the stream route does.
          const estimated = { prompt_tokens: countPromptTokens({ model: modelName, messages: promptMessages(params) }), completion_tokens: producedTokens };
          void send(attribution, holdId, model.modelId, estimated, { usage_source: 'estimated', ended });
        } else if (holdId) {
          void ledger.track(ledger.releaseHold(holdId));
        }
      };
      const reader = stream.getReader();
      // A pull source, so an abort (the caller's signal errors the read) and a cancel both end here.
      const watched = new ReadableStream<LanguageModelV3StreamPart>(
        {
          async pull(controller) {
            // Raw chunks the caller did not ask for are read here and not passed on: read on until a part is.
            for (;;) {
              let result: Awaited<ReturnType<typeof reader.read>>;
              try {
                result = await reader.read();
              } catch (error) {
                finish(isAbort(error) ? 'aborted' : 'error');
                controller.error(error);
                return;
              }
              if (result.done) {
                finish('finished');
                controller.close();
                return;
              }
              const part = result.value;
              if (part.type === 'raw') {
                rawUsage.read(part.rawValue);
                if (!callerWantsRaw) continue;
              } else if (part.type === 'finish') usage = part.usage;
              else if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta') produced += part.delta;
              else if (part.type === 'error') errored = true;
              controller.enqueue(part);
              return;
            }
          },
          async cancel(reason) {
            finish('aborted');
            await reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
      return { stream: watched, ...rest };
    },
  };
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** The call's prompt as chat messages (text parts), for the estimate when no usage arrived. */
function promptMessages(params: LanguageModelV3CallOptions): Array<{ role: string; content: string }> {
  return params.prompt.map((message) => ({
    role: message.role,
    content: typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join(''),
  }));
}
