// LedgerClient: the typed REST client (openapi-fetch over the generated `paths`), retries for the
// idempotent requests, typed errors, and the report path the stream helpers use (durable with an
// outbox). `ledger.api` is the full generated client for every endpoint of the API.
import createClient, { type Client } from 'openapi-fetch';
import { LedgerError, ledgerErrorFrom, networkError } from './errors.js';
import type { components, paths } from './generated/openapi.js';
import { Outbox, type OutboxPassResult } from './outbox.js';
import type { DeliveryOutcome, LedgerReport, StreamReportQuery, UsageEventBody } from './reports.js';
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
  /** A report that could not be delivered and is not kept (no outbox, or refused for good). */
  onReportError?: (error: Error, report: LedgerReport) => void;
}

export const OUTBOX_INTERVAL_MS_DEFAULT = 5_000;
export const REQUEST_TIMEOUT_MS_DEFAULT = 30_000;

/** POSTs that carry their own idempotency id (api.md): safe to send again. */
const IDEMPOTENT_POSTS = [
  /^\/v1\/holds$/,
  /^\/v1\/holds\/[^/]+\/release$/,
  /^\/v1\/usage-events(?:\/batch|\/stream)?$/,
  /^\/v1\/admin\/users\/[^/]+\/credits$/,
];

function isIdempotent(request: Request, basePath: string): boolean {
  if (['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(request.method)) return true;
  const path = new URL(request.url).pathname.slice(basePath.length);
  return request.method === 'POST' && IDEMPOTENT_POSTS.some((pattern) => pattern.test(path));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface FlushResult extends OutboxPassResult {}

export class LedgerClient {
  /** The generated, typed client of the whole API (retries included). */
  readonly api: Client<paths>;
  private readonly policy: RetryPolicy;
  private readonly outbox: Outbox | undefined;
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
      this.outbox = new Outbox({ dir: options.outboxDir, send: (report) => this.deliver(report) });
      // What a previous run left behind goes first, then every interval; never keeps the process alive.
      this.track(this.outbox.deliverAll());
      this.timer = setInterval(() => this.track(this.outbox!.deliverAll()), options.outboxIntervalMs ?? OUTBOX_INTERVAL_MS_DEFAULT);
      this.timer.unref();
    }
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

  /** POST /v1/usage-events/stream: the server reassembles the raw SSE and bills it. */
  async recordStream(query: StreamReportQuery, sse: Uint8Array, policy: RetryPolicy = this.policy): Promise<UsageEventResult> {
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}/v1/usage-events/stream`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const request = new Request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'text/event-stream' },
      body: sse,
    });
    const response = await this.call(() => this.fetchWithRetries(request, policy));
    const body = await response.json().catch(() => null);
    if (!response.ok) throw ledgerErrorFrom(response.status, body, parseRetryAfterMs(response.headers.get('retry-after'), Date.now()));
    return body as UsageEventResult;
  }

  /**
   * Hands one call's usage to the ledger. With an outbox it is on disk first (durable before any
   * send) and removed once delivered; without one it is sent with retries and, if that fails, given
   * to onReportError. Never throws: the caller's completion already happened.
   */
  report(report: LedgerReport): Promise<void> {
    const work = this.outbox ? this.reportDurably(this.outbox, report) : this.reportDirectly(report);
    return this.track(work);
  }

  /** Waits for the reports in flight, then sends what the outbox holds now. */
  async flush(): Promise<FlushResult> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    if (!this.outbox) return { delivered: 0, pending: 0, dead: 0 };
    return this.outbox.deliverAll();
  }

  /** Stops the background delivery (the outbox stays on disk for the next start). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async reportDurably(outbox: Outbox, report: LedgerReport): Promise<void> {
    const name = await outbox.put(report);
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
          : await this.sendEvent(report.body, policy);
      return { outcome: 'delivered', status: 200, body };
    } catch (error) {
      if (error instanceof LedgerError && !error.retryable) {
        if (!this.outbox) return { outcome: 'refused', error };
        this.reportError(error, report);
        return { outcome: 'refused', error };
      }
      return { outcome: 'retry', error: error as Error };
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

  private reportError(error: Error, report: LedgerReport): void {
    if (this.options.onReportError) this.options.onReportError(error, report);
    else console.error(`ledger: usage of ${report.event_id} not delivered: ${error.message}`);
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
