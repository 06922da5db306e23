// ledgerMiddleware({ledger, attribution}) for the AI SDK's wrapLanguageModel (ai@6, middleware
// specification v3): reports the usage of each generateText / streamText call as a usage event
// (POST /v1/usage-events), from the provider's usage the AI SDK hands back. x-ledger-* headers in
// the call's headers are attribution only and are removed before the provider sees them.
import type { LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { type Attribution, type AttributionFn, attributionFromHeaders, completeAttribution, holdIdFor, LEDGER_HEADER_PREFIX } from './attribution.js';
import type { LedgerClient } from './client.js';
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

  const report = (attribution: Attribution, holdId: string | undefined, modelId: string, usage: LanguageModelV3Usage) => {
    const body: UsageEventBody = {
      event_id: attribution.event_id,
      user_id: attribution.user_id,
      contributor_id: attribution.contributor_id,
      model: attribution.model ?? modelId,
      occurred_at: new Date().toISOString(),
      usage: usageFromAiSdk(usage),
      ...(holdId ? { hold_id: holdId } : {}),
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
      await report(attribution, holdId, model.modelId, result.usage);
      return result;
    },
    wrapStream: async ({ doStream, params, model }) => {
      const { attribution, holdId } = await prepare(params);
      params.headers = headersWithoutLedger(params.headers);
      const { stream, ...rest } = await doStream();
      let usage: LanguageModelV3Usage | undefined;
      let reported = false;
      const finish = () => {
        if (reported) return;
        reported = true;
        if (usage) void report(attribution, holdId, model.modelId, usage);
        else if (holdId) void ledger.track(ledger.releaseHold(holdId));
      };
      const watched = stream.pipeThrough(
        new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          transform(part, controller) {
            if (part.type === 'finish') usage = part.usage;
            controller.enqueue(part);
          },
          flush: finish,
        }),
      );
      return { stream: watched, ...rest };
    },
  };
}
