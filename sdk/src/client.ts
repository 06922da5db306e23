// LedgerClient: the typed REST client (openapi-fetch over the generated `paths`), retries for the
// idempotent requests, typed errors, and the report path the stream helpers use (durable with an
// outbox). `ledger.api` is the full generated client for every endpoint of the API.
import createClient, { type Client } from 'openapi-fetch';
import { LedgerError, ledgerErrorFrom, networkError } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import { type DeadLetter, Outbox, type OutboxPassResult } from './outbox.js';
import type { DeliveryOutcome, LedgerReport, ResponseReportQuery, StreamReportQuery, UsageEventBody } from './reports.js';
import { usageFromOpenAiAnswer } from './usage-kinds.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfterMs, retryDelayMs, type RetryPolicy } from './retry.js';

export type CreateHoldBody = components['schemas']['CreateHoldDto'];

/** The fields of a usage-event answer the SDK relies on (api.md "Usage events"); the rest pass through. */
export interface UsageEventResult {
  event_id: string;
  status: 'priced' | 'unpriced' | string;
  charge_usd?: string;
  [field: string]: unknown;
}

export interface HoldResult {
  hold_id: string;
  status: string;
  amount_usd: string;
  expires_at: string;
  [field: string]: unknown;
}

export interface LedgerClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Keep reports the ledger cannot take now on disk and send them later (see outbox.ts). */
  outboxDir?: string;
  /** How often the outbox is delivered in the background. */
  outboxIntervalMs?: number;
  retry?: Partial<RetryPolicy>;
  /** One attempt's limit; a slower answer counts as a network error (and is retried). */
  requestTimeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /**
   * A report the ledger refused for good (kept in the outbox's dead/), one that could not be
   * delivered and is not kept (no outbox), one the outbox could not write to disk (it is sent
   * directly), or an outbox file that cannot be read (moved to unreadable/). Default: one stderr line.
   */
  onReportError?: (error: Error, report: LedgerReport | undefined) => void;
}

/** The outbox's dead letters: what the ledger refused for good, to list and send again. */
export interface LedgerOutbox {
  /** Reports refused for good (validation, unknown contributor, ...), with the ledger's answer. */
  dead(): Promise<DeadLetter[]>;
  /** Sends them again (all, or the ids dead() names); one refused again goes back to dead/. */
  retryDead(ids?: string[]): Promise<OutboxPassResult>;
  /** Reports on disk waiting to be delivered. */
  pending(): Promise<number>;
}

/** Written to disk failed (full, read-only): the report was sent directly instead. */
export class LedgerOutboxWriteError extends Error {
  override name = 'LedgerOutboxWriteError';
}

/**
 * A refusal the same report can never overcome: the ledger read it and said no (bad input,
 * conflict, unknown contributor, too large). Everything else is kept and retried on its own
 * schedule: the ledger down or overloaded (408, 425, 429, 5xx, network), and 401/403/404, which
 * an operator fixes without touching the report (a rotated key, a ledger being upgraded).
 */
export function isPermanentRefusal(error: unknown): boolean {
  return error instanceof LedgerError && [400, 409, 410, 413, 415, 422].includes(error.status);
}

export const OUTBOX_INTERVAL_MS_DEFAULT = 5_000;
export const REQUEST_TIMEOUT_MS_DEFAULT = 30_000;

/** POSTs that carry their own idempotency id (api.md): safe to send again. */
const IDEMPOTENT_POSTS = [
  /^\/v1\/holds$/,
  /^\/v1\/holds\/[^/]+\/release$/,
  /^\/v1\/usage-events(?:\/batch|\/stream|\/response)?$/,
  /^\/v1\/admin\/users\/[^/]+\/credits$/,
];

function isIdempotent(request: Request, basePath: string): boolean {
  if (['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method)) return true;
  const path = new URL(request.url).pathname.slice(basePath.length);
  return request.method === 'POST' && IDEMPOTENT_POSTS.some((pattern) => pattern.test(path));
}

/** No answer at all (connection refused or reset), as opposed to a slow answer to one big report. */
function isUnreachable(error: unknown): boolean {
  return error instanceof LedgerError && error.status === 0 && (error as { cause?: { name?: string } }).cause?.name !== 'TimeoutError';
}

/** A ledger before #33 answers `format` on the stream route with 400 validation_failed naming it. */
function refusesFormatParameter(error: unknown): boolean {
  return error instanceof LedgerError && error.status === 400 && error.code === 'validation_failed' && JSON.stringify(error.details ?? '').includes('format');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface FlushResult extends OutboxPassResult {}

export class LedgerClient {
  /** The generated, typed client of the whole API (retries included). */
  readonly api: Client<paths>;
  private readonly policy: RetryPolicy;
  private readonly store: Outbox | undefined;
  /** The outbox's dead letters (empty without `outboxDir`). */
  readonly outbox: LedgerOutbox;
  /** Set once this ledger refuses `format` on the stream route (a ledger before #33): chat streams are sent without it. */
  private streamFormatUnsupported = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly basePath: string;
  private readonly fetchImpl: typeof globalThis.fetch;

  constructor(private readonly options: LedgerClientOptions) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.basePath = new URL(options.baseUrl).pathname.replace(/\/$/, '');
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: (request: Request) => this.fetchWithRetries(request, this.policy),
    });
    if (options.outboxDir) {
      const store = new Outbox({ dir: options.outboxDir, send: (report) => this.deliver(report), onError: (error) => this.reportError(error, undefined) });
      this.store = store;
      // What a previous run left behind goes first, then every interval; never keeps the process alive.
      this.track(store.deliverAll({ force: true }));
      this.timer = setInterval(() => this.track(store.deliverAll()), options.outboxIntervalMs ?? OUTBOX_INTERVAL_MS_DEFAULT);
      this.timer.unref();
    }
    const store = this.store;
    this.outbox = {
      dead: async () => (store ? store.dead() : []),
      retryDead: async (ids) => (store ? this.track(store.retryDead(ids)) : { delivered: 0, pending: 0, dead: 0 }),
      pending: async () => (store ? (await store.list()).length : 0),
    };
  }

  /** POST /v1/holds (idempotent by hold_id); 402 is a LedgerInsufficientFundsError. */
  async createHold(body: CreateHoldBody): Promise<HoldResult> {
    const { data, error, response } = await this.call(() => this.api.POST('/v1/holds', { body }));
    return this.unwrap<HoldResult>(data, error, response);
  }

  async releaseHold(holdId: string): Promise<HoldResult> {
    const { data, error, response } = await this.call(() => this.api.POST('/v1/holds/{hold_id}/release', { params: { path: { hold_id: holdId } } }));
    return this.unwrap<HoldResult>(data, error, response);
  }

  /** POST /v1/usage-events (idempotent by event_id: a replay answers the first result). */
  async recordUsage(body: UsageEventBody): Promise<UsageEventResult> {
    const { data, error, response } = await this.call(() => this.api.POST('/v1/usage-events', { body }));
    return this.unwrap<UsageEventResult>(data, error, response);
  }

  /** POST /v1/usage-events/stream: the server reassembles the raw SSE (in the query's `format`) and bills it. */
  async recordStream(query: StreamReportQuery, sse: Uint8Array, policy: RetryPolicy = this.policy): Promise<UsageEventResult> {
    // Chat Completions is the format a ledger without `format` detects: sent without it to such a ledger.
    const sendFormat = !(this.streamFormatUnsupported && query.format === 'openai-chat');
    try {
      return await this.postRaw('/v1/usage-events/stream', sendFormat ? query : { ...query, format: undefined }, 'text/event-stream', sse, policy);
    } catch (error) {
      if (!sendFormat || query.format !== 'openai-chat' || !refusesFormatParameter(error)) throw error;
      this.streamFormatUnsupported = true;
      return this.recordStream(query, sse, policy);
    }
  }

  /**
   * POST /v1/usage-events/response: the server reads the usage of a non-streamed answer in the
   * query's `format` and bills it. A ledger without that route (404, before #33) bills a Chat
   * Completions answer from its `usage` as a usage event instead.
   */
  async recordResponse(query: ResponseReportQuery, json: Uint8Array, policy: RetryPolicy = this.policy): Promise<UsageEventResult> {
    try {
      return await this.postRaw('/v1/usage-events/response', query, 'application/json', json, policy);
    } catch (error) {
      const answer = query.format === 'openai-chat' && error instanceof LedgerError && error.status === 404 ? usageFromOpenAiAnswer(json) : undefined;
      if (!answer || !query.model) throw error;
      const { event_id, user_id, contributor_id, occurred_at, hold_id, model } = query;
      return this.sendEvent({ event_id, user_id, contributor_id, model, usage: answer, ...(occurred_at ? { occurred_at } : {}), ...(hold_id ? { hold_id } : {}) }, policy);
    }
  }

  private async postRaw(path: string, query: Record<string, unknown>, contentType: string, body: Uint8Array, policy: RetryPolicy): Promise<UsageEventResult> {
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const request = new Request(url, { method: 'POST', headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': contentType }, body });
    const response = await this.call(() => this.fetchWithRetries(request, policy));
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw ledgerErrorFrom(response.status, answer, parseRetryAfterMs(response.headers.get('retry-after'), Date.now()));
    return answer as UsageEventResult;
  }

  /**
   * Hands one call's usage to the ledger. With an outbox it is on disk first (durable before any
   * send) and removed once delivered; without one it is sent with retries and, if that fails, given
   * to onReportError. Never throws: the caller's completion already happened.
   */
  report(report: LedgerReport): Promise<void> {
    const work = this.store ? this.reportDurably(this.store, report) : this.reportDirectly(report);
    return this.track(work);
  }

  /** Waits for the reports in flight, then sends everything the outbox holds now (also reports waiting for their next attempt). */
  async flush(): Promise<FlushResult> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    if (!this.store) return { delivered: 0, pending: 0, dead: 0 };
    return this.store.deliverAll({ force: true });
  }

  /** Stops the background delivery (the outbox stays on disk for the next start). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async reportDurably(outbox: Outbox, report: LedgerReport): Promise<void> {
    let name: string;
    try {
      name = await outbox.put(report);
    } catch (error) {
      // The disk cannot take it (full, read-only): never swallowed, sent now with retries instead.
      this.reportError(new LedgerOutboxWriteError(`outbox could not keep the report (${(error as Error).message}); sending it directly`, { cause: error }), report);
      return this.reportDirectly(report);
    }
    await outbox.deliver(name);
  }

  private async reportDirectly(report: LedgerReport): Promise<void> {
    const result = await this.deliver(report, this.policy);
    if (result.outcome !== 'delivered') this.reportError(result.error, report);
  }

  /** One delivery of a report: outbox passes try once (the next pass is the retry), direct sends retry. */
  private async deliver(report: LedgerReport, policy: RetryPolicy = { ...this.policy, attemptsMax: 1 }): Promise<DeliveryOutcome> {
    try {
      const body =
        report.kind === 'stream'
          ? await this.recordStream(report.query, Buffer.from(report.body_base64, 'base64'), policy)
          : report.kind === 'response'
            ? await this.recordResponse(report.query, Buffer.from(report.body_base64, 'base64'), policy)
            : await this.sendEvent(report.body, policy);
      return { outcome: 'delivered', status: 200, body };
    } catch (error) {
      if (isPermanentRefusal(error)) {
        // Without an outbox the caller (reportDirectly) says so; with one, it is a dead letter now.
        if (this.store) this.reportError(error as Error, report);
        return { outcome: 'refused', error: error as Error };
      }
      return { outcome: 'retry', error: error as Error, unreachable: isUnreachable(error) };
    }
  }

  private async sendEvent(body: UsageEventBody, policy: RetryPolicy): Promise<UsageEventResult> {
    const request = new Request(`${this.options.baseUrl.replace(/\/$/, '')}/v1/usage-events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const response = await this.call(() => this.fetchWithRetries(request, policy));
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw ledgerErrorFrom(response.status, answer);
    return answer as UsageEventResult;
  }

  private reportError(error: Error, report: LedgerReport | undefined): void {
    if (this.options.onReportError) this.options.onReportError(error, report);
    else console.error(report ? `ledger: usage of ${report.event_id}: ${error.message}` : `ledger: ${error.message}`);
  }

  /** Keeps background work (a report being prepared) in what flush() waits for. */
  track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    // The background delivery must never crash the gateway; failures stay in the outbox.
    tracked.catch(() => undefined);
    return tracked;
  }

  /** Turns a failed fetch (refused, reset, timed out) into a LedgerNetworkError. */
  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      if (error instanceof LedgerError) throw error;
      throw networkError(error);
    }
  }

  private unwrap<T>(data: unknown, error: unknown, response: Response): T {
    if (error !== undefined || !response.ok) throw ledgerErrorFrom(response.status, error, parseRetryAfterMs(response.headers.get('retry-after'), Date.now()));
    return data as T;
  }

  private async fetchWithRetries(request: Request, policy: RetryPolicy): Promise<Response> {
    const retryable = isIdempotent(request, this.basePath);
    for (let attempt = 1; ; attempt += 1) {
      const signal = AbortSignal.timeout(this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS_DEFAULT);
      let response: Response;
      try {
        response = await this.fetchImpl(new Request(request.clone(), { signal }));
      } catch (error) {
        const delayMs = retryable ? retryDelayMs({ policy, attempt, random: Math.random() }) : null;
        if (delayMs === null) throw networkError(error);
        await sleep(delayMs);
        continue;
      }
      if (!retryable || !isRetryableStatus(response.status)) return response;
      const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), Date.now());
      const delayMs = retryDelayMs({ policy, attempt, retryAfterMs, random: Math.random() });
      if (delayMs === null) return response;
      await response.body?.cancel();
      await sleep(delayMs);
    }
  }
}
