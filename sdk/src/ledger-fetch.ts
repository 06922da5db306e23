// ledgerFetch(fetch, {ledger, attribution}): a `fetch` for `new OpenAI({fetch})`, the AI SDK's
// `createOpenAI({fetch})` or any client that takes one. The caller reads the upstream's own bytes,
// chunk by chunk as they arrive (nothing is buffered in front of it); a copy of each chunk is kept
// and, once the stream ends (done, cut off, or cancelled/aborted by the caller), the raw SSE goes to
// POST /v1/usage-events/stream, where the server's reassembler (the one SSE parser) bills it. A
// non-streamed completion is reported from its `usage` as a usage event.
import { type Attribution, type AttributionFn, attributionFromHeaders, completeAttribution, holdIdFor, withoutLedgerHeaders } from './attribution.js';
import type { LedgerClient } from './client.js';
import { countPromptTokens } from './prompt-tokens.js';
import { eventReport, streamReport, type StreamReportQuery, type UsageEventBody } from './reports.js';

export interface LedgerFetchOptions {
  ledger: LedgerClient;
  /** Who the call is billed to; without it the x-ledger-* headers must say. */
  attribution?: AttributionFn<Request>;
}

/** Request bodies read to count prompt tokens at most; a larger body is passed on but not counted. */
export const REQUEST_BODY_BYTES_MAX = 32 * 1024 * 1024;
/** Paths whose calls are billed; anything else (models list, files, embeddings) passes through untouched. */
const BILLED_PATH = /\/(?:chat\/)?completions$/;

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

interface ParsedBody {
  model?: unknown;
  messages?: unknown;
  stream?: unknown;
}

function parseJsonBody(text: string): ParsedBody {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as ParsedBody) : {};
  } catch {
    return {};
  }
}

/** OpenAI's non-streamed `usage` in the api.md usage kinds (containment as OpenAI reports it). */
export function usageFromOpenAi(usage: Record<string, unknown> | undefined): UsageEventBody['usage'] {
  const n = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
  const prompt = (usage?.prompt_tokens_details ?? {}) as Record<string, unknown>;
  const completion = (usage?.completion_tokens_details ?? {}) as Record<string, unknown>;
  const kinds: Record<string, number> = {
    prompt_tokens: n(usage?.prompt_tokens),
    completion_tokens: n(usage?.completion_tokens),
    cached_tokens: n(prompt.cached_tokens),
    prompt_audio_tokens: n(prompt.audio_tokens),
    reasoning_tokens: n(completion.reasoning_tokens),
    completion_audio_tokens: n(completion.audio_tokens),
  };
  return Object.fromEntries(Object.entries(kinds).filter(([key, value]) => value > 0 || key === 'prompt_tokens' || key === 'completion_tokens')) as UsageEventBody['usage'];
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

interface CallContext {
  ledger: LedgerClient;
  attribution: Attribution;
  holdId: string | undefined;
  promptTokens: number;
}

/**
 * The caller's body: each upstream chunk is handed over as soon as the caller asks for one (a pull
 * source with no queue of its own), and a copy kept for the report. Cancelling it cancels the
 * upstream; an abort of the caller's signal errors the upstream read; both still report.
 */
function teeForReport(upstream: ReadableStream<Uint8Array>, ledger: LedgerClient, onEnd: (sse: Uint8Array) => void): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  // After the caller has its last chunk (or its error): the report is built and sent off its path.
  const end = () => {
    if (ended) return;
    ended = true;
    // Tracked at once, so a flush() right after the stream ends waits for this report too.
    void ledger.track(new Promise<void>((resolve) => setImmediate(() => resolve(onEnd(concat(chunks, length))))));
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (error) {
          controller.error(error);
          end();
          return;
        }
        if (result.done) {
          controller.close();
          end();
          return;
        }
        // A copy: the caller owns the chunk it is given and may reuse or transfer its buffer.
        chunks.push(result.value.slice());
        length += result.value.byteLength;
        controller.enqueue(result.value);
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Nothing is billed for this call: its hold, if it took one, is given back (in the background). */
function releaseHoldOf({ ledger, holdId }: CallContext): void {
  if (holdId) void ledger.track(ledger.releaseHold(holdId));
}

/** What both kinds of report say of the call: whose it was, when, and the hold it captures. */
function reportedCall({ attribution, holdId }: CallContext): Pick<UsageEventBody, 'event_id' | 'user_id' | 'contributor_id' | 'occurred_at' | 'hold_id'> {
  return {
    event_id: attribution.event_id,
    user_id: attribution.user_id,
    contributor_id: attribution.contributor_id,
    occurred_at: new Date().toISOString(),
    ...(holdId ? { hold_id: holdId } : {}),
  };
}

function reportStream(context: CallContext, sse: Uint8Array): void {
  if (sse.byteLength === 0) {
    // Nothing arrived, so nothing was produced: nothing to bill; the hold is given back.
    releaseHoldOf(context);
    return;
  }
  const { model } = context.attribution;
  const query: StreamReportQuery = { ...reportedCall(context), prompt_tokens: context.promptTokens, ...(model ? { model } : {}) };
  void context.ledger.report(streamReport(query, sse));
}

async function reportCompletion(context: CallContext, response: Response, requestModel: unknown): Promise<void> {
  const completion = (await response.json().catch(() => null)) as { model?: unknown; usage?: Record<string, unknown> } | null;
  const model = context.attribution.model ?? (typeof completion?.model === 'string' ? completion.model : typeof requestModel === 'string' ? requestModel : undefined);
  if (!completion?.usage || !model) {
    releaseHoldOf(context);
    return;
  }
  const body: UsageEventBody = { ...reportedCall(context), model, usage: usageFromOpenAi(completion.usage) };
  await context.ledger.report(eventReport(body));
}

export function ledgerFetch(fetch: FetchLike, options: LedgerFetchOptions): FetchLike {
  const { ledger } = options;
  return async function fetchWithLedger(input, init) {
    const request = new Request(input, init);
    const headers = withoutLedgerHeaders(request.headers);
    if (request.method !== 'POST' || !BILLED_PATH.test(new URL(request.url).pathname)) {
      return fetch(new Request(request, { headers }));
    }
    const bodyBytes = new Uint8Array(await request.arrayBuffer());
    const body = bodyBytes.byteLength <= REQUEST_BODY_BYTES_MAX ? parseJsonBody(new TextDecoder().decode(bodyBytes)) : {};
    // The callback sees the caller's request, x-ledger-* headers included.
    const attribution = completeAttribution(attributionFromHeaders(request.headers), options.attribution ? await options.attribution(new Request(request.url, { method: request.method, headers: request.headers, body: bodyBytes })) : undefined);
    const holdId = attribution.hold_usd ? holdIdFor(attribution.event_id) : undefined;
    if (holdId) await ledger.createHold({ hold_id: holdId, user_id: attribution.user_id, amount_usd: attribution.hold_usd! });
    const context: CallContext = { ledger, attribution, holdId, promptTokens: countPromptTokens(body) };

    let upstream: Response;
    try {
      upstream = await fetch(request.url, { method: 'POST', headers, body: bodyBytes, signal: request.signal, redirect: request.redirect });
    } catch (error) {
      releaseHoldOf(context);
      throw error;
    }
    if (!upstream.ok || !upstream.body) {
      // The upstream refused the call: nothing was produced, nothing is billed.
      releaseHoldOf(context);
      return upstream;
    }
    const isStream = (upstream.headers.get('content-type') ?? '').includes('text/event-stream') || body.stream === true;
    if (!isStream) {
      ledger.track(reportCompletion(context, upstream.clone(), body.model));
      return upstream;
    }
    const toCaller = teeForReport(upstream.body, ledger, (sse) => reportStream(context, sse));
    return new Response(toCaller, { status: upstream.status, statusText: upstream.statusText, headers: upstream.headers });
  };
}
