// ledgerFetch(fetch, {ledger, attribution}): a `fetch` for `new OpenAI({fetch})`, `new
// Anthropic({fetch})`, the AI SDK's providers (`createOpenAI`, `createAnthropic`,
// `createGoogleGenerativeAI`, all take `fetch`) or any client that takes one. Every POST api.md
// lists is billed: Chat Completions, legacy completions, Responses, Anthropic Messages, Gemini
// generateContent / streamGenerateContent, embeddings. The caller reads the upstream's own bytes,
// chunk by chunk as they arrive (nothing is buffered in front of it); a copy is kept and, once the
// answer ends (done, cut off, or cancelled/aborted by the caller), it goes to the ledger, whose
// parsers (one per wire format) bill it: a stream to /v1/usage-events/stream, a JSON answer to
// /v1/usage-events/response, an embedding's `usage` as a usage event.
import { type Attribution, type AttributionFn, attributionFromHeaders, completeAttribution, holdIdFor, withoutLedgerHeaders } from './attribution.js';
import type { LedgerClient } from './client.js';
import { LedgerInsufficientFundsError } from './errors.js';
import { countRequestPromptTokens } from './prompt-tokens.js';
import { eventReport, responseReport, streamReport, type StreamReportQuery, type UsageEventBody } from './reports.js';
import { type BilledCall, billedCallOf, geminiJsonArrayAsSse } from './wire-formats.js';

export { usageFromOpenAi } from './usage-kinds.js';

export interface LedgerFetchOptions {
  ledger: LedgerClient;
  /** Who the call is billed to; without it the x-ledger-* headers must say. */
  attribution?: AttributionFn<Request>;
}

/** Request bodies read to count prompt tokens at most; a larger body is passed on but not counted. */
export const REQUEST_BODY_BYTES_MAX = 32 * 1024 * 1024;

type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function parseJsonBody(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
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
  call: BilledCall;
  holdId: string | undefined;
  /** The request body, for its prompt tokens: counted when the report is made, off the caller's path. */
  body: Record<string, unknown>;
}

/**
 * The caller's body: each upstream chunk is handed over as soon as the caller asks for one (a pull
 * source with no queue of its own), and a copy kept for the report. Cancelling it cancels the
 * upstream; an abort of the caller's signal errors the upstream read; both still report.
 */
function teeForReport(upstream: ReadableStream<Uint8Array>, ledger: LedgerClient, onEnd: (bytes: Uint8Array) => Promise<void>): ReadableStream<Uint8Array> {
  const reader = upstream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  // After the caller has its last chunk (or its error): the report is built and sent off its path.
  const end = () => {
    if (ended) return;
    ended = true;
    // Tracked at once, so a flush() right after the answer ends waits for this report too.
    void ledger.track(new Promise<void>((resolve, reject) => setImmediate(() => onEnd(concat(chunks, length)).then(resolve, reject))));
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

/**
 * Who, when, which model and hold: the model is the attribution's, else the one the request names,
 * never the one the upstream's answer names (the upstream is the contributor's, api.md).
 */
function reportQuery({ attribution, holdId, call, body }: CallContext): StreamReportQuery {
  const model = attribution.model ?? call.requestModel;
  const promptTokens = call.kind === 'generation' ? countRequestPromptTokens(call.format, body, model) : 0;
  return {
    event_id: attribution.event_id,
    user_id: attribution.user_id,
    contributor_id: attribution.contributor_id,
    occurred_at: new Date().toISOString(),
    format: call.format,
    prompt_tokens: promptTokens,
    ...(model ? { model } : {}),
    ...(holdId ? { hold_id: holdId } : {}),
  };
}

const decoder = new TextDecoder();

/** What the upstream answered, as the ledger takes it: SSE to the stream route, JSON to the response route. */
async function reportAnswer(context: CallContext, bytes: Uint8Array, contentType: string): Promise<void> {
  if (bytes.byteLength === 0) {
    // Nothing arrived, so nothing was produced: nothing to bill; the hold is given back.
    releaseHoldOf(context);
    return;
  }
  const query = reportQuery(context);
  if (contentType.includes('text/event-stream')) return context.ledger.report(streamReport(query, bytes));
  // Gemini's streamGenerateContent without ?alt=sse: a JSON array of responses, reported as the stream it is.
  const geminiArray = context.call.format === 'gemini' && context.call.streamRequested ? geminiJsonArrayAsSse(decoder.decode(bytes)) : undefined;
  if (geminiArray !== undefined) return context.ledger.report(streamReport(query, new TextEncoder().encode(geminiArray)));
  // JSON, also when the request asked for a stream (a gateway or upstream may answer `stream: true` whole).
  return context.ledger.report(responseReport(query, bytes));
}

/** An embedding: billed from its `usage` (input tokens only). */
async function reportEmbedding(context: CallContext, bytes: Uint8Array): Promise<void> {
  const usage = parseJsonBody(decoder.decode(bytes)).usage as Record<string, unknown> | undefined;
  const prompt = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : usage?.total_tokens;
  const { event_id, user_id, contributor_id, occurred_at, hold_id, model } = reportQuery(context);
  if (typeof prompt !== 'number' || !model) {
    releaseHoldOf(context);
    return;
  }
  const body: UsageEventBody = { event_id, user_id, contributor_id, occurred_at, model, usage: { prompt_tokens: prompt, completion_tokens: 0 }, ...(hold_id ? { hold_id } : {}) };
  await context.ledger.report(eventReport(body));
}

/**
 * A refused hold as the HTTP answer an upstream would give: 402 with the ledger's error body, so
 * the caller's SDK raises its own API error (OpenAI `APIError` with `status` and `code`, Anthropic
 * `PaymentRequiredError`, the AI SDK's `APICallError` with `statusCode`) and does not retry.
 */
function refusedHoldResponse(error: LedgerInsufficientFundsError): Response {
  const body = { error: { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) } };
  return new Response(JSON.stringify(body), { status: 402, statusText: 'Payment Required', headers: { 'content-type': 'application/json', 'x-should-retry': 'false' } });
}

/** Reads the whole answer off a clone (reported even if the caller never reads it); undefined when it was cut off. */
async function wholeAnswer(response: Response): Promise<Uint8Array | undefined> {
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch {
    return undefined;
  }
}

export function ledgerFetch(fetch: FetchLike, options: LedgerFetchOptions): FetchLike {
  const { ledger } = options;
  return async function fetchWithLedger(input, init) {
    const request = new Request(input, init);
    const headers = withoutLedgerHeaders(request.headers);
    if (request.method !== 'POST') return fetch(new Request(request, { headers }));
    const bodyBytes = new Uint8Array(await request.arrayBuffer());
    const body = bodyBytes.byteLength <= REQUEST_BODY_BYTES_MAX ? parseJsonBody(decoder.decode(bodyBytes)) : {};
    const call = billedCallOf(new URL(request.url), body);
    const forward = () => fetch(request.url, { method: 'POST', headers, body: bodyBytes, signal: request.signal, redirect: request.redirect });
    if (!call) return forward();
    // The callback sees the caller's request, x-ledger-* headers included.
    const attribution = completeAttribution(attributionFromHeaders(request.headers), options.attribution ? await options.attribution(new Request(request.url, { method: request.method, headers: request.headers, body: bodyBytes })) : undefined);
    const holdId = attribution.hold_usd ? holdIdFor(attribution.event_id) : undefined;
    if (holdId) {
      try {
        await ledger.createHold({ hold_id: holdId, user_id: attribution.user_id, amount_usd: attribution.hold_usd! });
      } catch (error) {
        // Insufficient funds or a budget: the upstream never sees the call; the caller sees a 402.
        if (error instanceof LedgerInsufficientFundsError) return refusedHoldResponse(error);
        throw error;
      }
    }
    const context: CallContext = { ledger, attribution, call, holdId, body };

    let upstream: Response;
    try {
      upstream = await forward();
    } catch (error) {
      releaseHoldOf(context);
      throw error;
    }
    if (!upstream.ok || !upstream.body) {
      // The upstream refused the call: nothing was produced, nothing is billed.
      releaseHoldOf(context);
      return upstream;
    }
    const contentType = upstream.headers.get('content-type') ?? '';
    const report = call.kind === 'embeddings' ? (bytes: Uint8Array) => reportEmbedding(context, bytes) : (bytes: Uint8Array) => reportAnswer(context, bytes, contentType);
    const streamed = contentType.includes('text/event-stream') || (call.format === 'gemini' && call.streamRequested);
    if (!streamed) {
      // A whole JSON answer (also to a `stream: true` request): reported once it has all arrived.
      const copy = upstream.clone();
      void ledger.track(wholeAnswer(copy).then((bytes) => (bytes ? report(bytes) : releaseHoldOf(context))));
      return upstream;
    }
    const toCaller = teeForReport(upstream.body, ledger, report);
    return new Response(toCaller, { status: upstream.status, statusText: upstream.statusText, headers: upstream.headers });
  };
}
