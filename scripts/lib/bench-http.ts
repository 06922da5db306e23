// HTTP load against the real API: set-up through the admin API, batch and single-event ingestion
// and earnings queries driven by autocannon, each request with fresh, unique event ids.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { REPO_ROOT } from './bench-stack.js';
import { randomUUID } from 'node:crypto';
import { signRequest } from '../../src/common/signing/http-message-signature.js';

const HTTP_TIMEOUT_MS = 30_000;
const SETUP_CONCURRENCY = 16;
export const BENCH_USERS = 100;
export const BENCH_CONTRIBUTORS = 100;
const USER_CREDIT_USD = '1000000';
/** Official list prices from the LiteLLM catalog copy in test/fixtures. */
const PRICE_FIXTURE = join(REPO_ROOT, 'test/fixtures/prices/model_prices_and_context_window.json');
export const BENCH_MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'];
const AUTOCANNON_TIMEOUT_S = 30;

/**
 * Connections of the batch and the single-event ingestion loads: the same in the bench's phases
 * and in the history bench's steps, so their events/s compare.
 */
export const BATCH_CONNECTIONS = 4;
export const SINGLE_CONNECTIONS = 64;

export interface AdminApi {
  baseUrl: string;
  adminKey: string;
}

/** A running stack as the measurements see it: its API (with the admin key) and its database. */
export interface StackApi extends AdminApi {
  databaseUrl: string;
}

/** The middle value (the upper middle for an even count): a few timed runs of one thing. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function call(api: AdminApi, method: string, path: string, body: unknown, okStatuses: number[], contentType = 'application/json'): Promise<any> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
  });
  const text = await response.text();
  if (!okStatuses.includes(response.status)) throw new Error(`${method} ${path} -> ${response.status}: ${text.slice(0, 400)}`);
  return text ? JSON.parse(text) : null;
}

/** GET `url` with a bearer key as a client sees it, timed from send to the body's last byte; throws unless 200. */
export async function timedGetJson<T>(url: string, apiKey: string, timeoutMs: number, what: string): Promise<{ ms: number; body: T }> {
  const startedMs = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  const ms = performance.now() - startedMs;
  if (response.status !== 200) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`);
  return { ms, body: JSON.parse(text) as T };
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

export const benchContributorId = (i: number) => `bench-c${String(i).padStart(4, '0')}`;
export const benchUserId = (i: number) => `bench-u${String(i).padStart(4, '0')}`;

/** Prices (LiteLLM import), contributors (every 4th premium), funded users, and a gateway key. */
export async function seedForIngestion(api: AdminApi): Promise<string> {
  const effectiveFrom = new Date(Date.now() - 24 * 3600_000).toISOString();
  await call(api, 'POST', `/v1/admin/prices/import?effective_from=${encodeURIComponent(effectiveFrom)}`, readFileSync(PRICE_FIXTURE, 'utf8'), [200, 201]);
  const contributors = Array.from({ length: BENCH_CONTRIBUTORS }, (_, i) => i);
  await eachLimited(contributors, SETUP_CONCURRENCY, (i) =>
    call(api, 'PUT', `/v1/admin/contributors/${benchContributorId(i)}`, {
      tier: i % 4 === 0 ? 'premium' : 'standard',
      payout_address: `0x${(i + 1).toString(16).padStart(40, '0')}`,
    }, [200, 201]),
  );
  const users = Array.from({ length: BENCH_USERS }, (_, i) => i);
  await eachLimited(users, SETUP_CONCURRENCY, (i) =>
    call(api, 'POST', `/v1/admin/users/${benchUserId(i)}/credits`, { amount_usd: USER_CREDIT_USD, reference: `bench-${benchUserId(i)}` }, [200, 201]),
  );
  const key = await call(api, 'POST', '/v1/admin/api-keys', { role: 'gateway', name: 'bench gateway' }, [201]);
  return key.key as string;
}

/** A signed gateway key: its `id` (the signatures' keyid) and its signing secret. */
export type GatewaySigner = { keyId: string; signingSecret: string };

/** A gateway key whose every request must be signed (the signed-path phase). */
export async function createSignedGatewayKey(api: AdminApi): Promise<{ key: string } & GatewaySigner> {
  const created = await call(api, 'POST', '/v1/admin/api-keys', { role: 'gateway', name: 'bench signed gateway', signed: true }, [201]);
  return { key: created.key as string, keyId: created.id as string, signingSecret: created.signing_secret as string };
}

/** The n-th bench event's fields (the batch and the LiteLLM phases send the same events). */
export function benchEvent(n: number) {
  const prompt = 200 + (n % 3800);
  return {
    model: BENCH_MODELS[n % BENCH_MODELS.length]!,
    prompt,
    completion: 20 + ((n * 7) % 900),
    cached: n % 3 === 0 ? prompt >> 2 : 0,
    userId: benchUserId(n % BENCH_USERS),
    contributorIndex: (n * 31) % BENCH_CONTRIBUTORS,
  };
}

/** The users of a phase's events (the spend phase: with vs without budgets), each event also naming one of 4 keys. */
export interface BenchUsers {
  userIds: readonly string[];
}

/** One event as JSON text; string building keeps the load generator cheap (it shares the 2 cores). */
function eventJson(prefix: string, n: number, users?: BenchUsers): string {
  const e = benchEvent(n);
  const user = users ? `${users.userIds[n % users.userIds.length]}","key_id":"k${n % 4}` : e.userId;
  return `{"event_id":"${prefix}-${n}","user_id":"${user}","contributor_id":"${benchContributorId(e.contributorIndex)}","model":"${e.model}","usage":{"prompt_tokens":${e.prompt},"completion_tokens":${e.completion},"cached_tokens":${e.cached},"reasoning_tokens":0}}`;
}

/** The model of the price-dimension phase: Claude-like prices with a 200k tier, cache writes, a search fee and a `us` variant. */
export const DIMENSION_MODEL = 'bench/claude-dimensions';

/** Price versions for the dimension phase, entered like an operator would (POST /v1/admin/prices). */
export async function seedDimensionPrices(api: AdminApi): Promise<void> {
  const effectiveFrom = new Date(Date.now() - 24 * 3600_000).toISOString();
  const version = (variant: string, k: number) => ({
    model: DIMENSION_MODEL,
    variant,
    effective_from: effectiveFrom,
    input_usd_per_mtok: String(3 * k),
    output_usd_per_mtok: String(15 * k),
    cached_input_usd_per_mtok: String(0.3 * k),
    cache_write_5m_usd_per_mtok: String(3.75 * k),
    cache_write_1h_usd_per_mtok: String(6 * k),
    tiers: [{ above_input_tokens: 200000, input_usd_per_mtok: String(6 * k), output_usd_per_mtok: String(22.5 * k), cached_input_usd_per_mtok: String(0.6 * k), cache_write_5m_usd_per_mtok: String(7.5 * k), cache_write_1h_usd_per_mtok: String(12 * k) }],
    web_search_usd_per_call: '0.01',
    request_usd: '0.000001',
  });
  await call(api, 'POST', '/v1/admin/prices', version('standard', 1), [200, 201]);
  await call(api, 'POST', '/v1/admin/prices', { ...version('us', 1.1), input_usd_per_mtok: '3.3', output_usd_per_mtok: '16.5', cached_input_usd_per_mtok: '0.33', cache_write_5m_usd_per_mtok: '4.125', cache_write_1h_usd_per_mtok: '6.6', tiers: [{ above_input_tokens: 200000, input_usd_per_mtok: '6.6', output_usd_per_mtok: '24.75', cached_input_usd_per_mtok: '0.66', cache_write_5m_usd_per_mtok: '8.25', cache_write_1h_usd_per_mtok: '13.2' }] }, [200, 201]);
}

/** An event using the dimensions: cache reads and 5m/1h writes, every 4th above the 200k tier, search calls, every 3rd at `us`. */
function dimensionEventJson(prefix: string, n: number): string {
  const prompt = n % 4 === 0 ? 200_001 + (n % 50_000) : 2_000 + (n % 30_000);
  const cached = prompt >> 2;
  const write5m = prompt >> 3;
  const write1h = n % 2 === 0 ? prompt >> 4 : 0;
  const completion = 20 + ((n * 7) % 900);
  const variant = n % 3 === 0 ? ',"price_variant":"us"' : '';
  return `{"event_id":"${prefix}-${n}","user_id":"${benchUserId(n % BENCH_USERS)}","contributor_id":"${benchContributorId((n * 31) % BENCH_CONTRIBUTORS)}","model":"${DIMENSION_MODEL}"${variant},"usage":{"prompt_tokens":${prompt},"completion_tokens":${completion},"cached_tokens":${cached},"reasoning_tokens":0,"cache_write_5m_tokens":${write5m},"cache_write_1h_tokens":${write1h},"web_search_calls":${n % 5}}}`;
}

// Beside LoadResult (what one load phase measured), not in bench-report, so that the report and
// the two-API helpers both import it from here instead of from each other.
/** Average cores busy during a load phase, by who used them. */
export interface PhaseCpu {
  apiCores: number;
  postgresCores: number;
  loadGeneratorCores: number;
  /** Everything else on the machine (other users' tests, builds): contention, not us. */
  otherCores: number;
  apiRssPeakBytes: number;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  non2xx: number;
  errors: number;
  pricedEvents: number;
  notPricedEvents: number;
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** One API, or a list of targets, one per connection (the round-robin client of the two-API phase). */
export type LoadTarget = string | string[];

export interface LoadSpec {
  baseUrl: LoadTarget;
  key: string;
  connections: number;
  durationS: number;
  path: string;
  method: 'GET' | 'POST';
  body?: () => string;
  /** Signs every request (RFC 9421: method, path, query, body) with this key (a signed gateway key). */
  signer?: GatewaySigner;
  /** Accepted events in one response body. */
  countPriced?: (status: number, body: string) => { priced: number; notPriced: number };
  pathFor?: () => string;
  /** Content-Type of every request (default application/json). */
  contentType?: string;
  /** Exactly this many requests instead of `durationS` seconds of load. */
  amount?: number;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let priced = 0;
  let notPriced = 0;
  const result = await autocannon({
    // autocannon takes a url list at run time (connection i on url i mod length); its types say string.
    url: spec.baseUrl as string,
    connections: spec.connections,
    ...(spec.amount === undefined ? { duration: spec.durationS } : { amount: spec.amount }),
    timeout: AUTOCANNON_TIMEOUT_S,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        headers: { authorization: `Bearer ${spec.key}`, 'content-type': spec.contentType ?? 'application/json' },
        setupRequest: (request) => {
          if (spec.body) request.body = spec.body();
          if (spec.pathFor) request.path = spec.pathFor();
          // Signed last: the signature covers the final method and path.
          if (spec.signer) {
            const signature = signRequest({ method: request.method ?? spec.method, url: request.path ?? spec.path, body: String(request.body ?? ''), keyId: spec.signer.keyId, secret: spec.signer.signingSecret, nonce: randomUUID() });
            request.headers = { ...request.headers, ...signature };
          }
          return request;
        },
        onResponse: (status, body) => {
          if (!spec.countPriced) return;
          const counted = spec.countPriced(status, body);
          priced += counted.priced;
          notPriced += counted.notPriced;
        },
      },
    ],
  });
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    seconds,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    pricedEvents: priced,
    notPricedEvents: notPriced,
    eventsPerSecond: priced / seconds,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}

export interface BatchLoadOptions {
  baseUrl: LoadTarget;
  key: string;
  size: number;
  connections: number;
  durationS: number;
  prefix: string;
  users?: BenchUsers;
}

/**
 * POST `path` with `size` fresh items per request (`itemJson` of the next n, comma-joined, then
 * `wrap`ped); a request's priced items are its "status":"priced" results, all of them when not 200.
 */
export function runBatchPostLoad(options: BatchLoadOptions, path: string, itemJson: (prefix: string, n: number) => string, wrap: (items: string) => string): Promise<LoadResult> {
  let n = 0;
  return runLoad({
    ...options,
    method: 'POST',
    path,
    body: () => {
      const items: string[] = new Array(options.size);
      for (let i = 0; i < options.size; i += 1) items[i] = itemJson(options.prefix, n++);
      return wrap(items.join(','));
    },
    countPriced: (status, body) => {
      if (status !== 200) return { priced: 0, notPriced: options.size };
      const priced = countOccurrences(body, '"status":"priced"');
      return { priced, notPriced: options.size - priced };
    },
  });
}

/** POST /v1/usage-events/batch with `size` fresh events per request. */
export function runBatchLoad(options: BatchLoadOptions): Promise<LoadResult> {
  return runBatchPostLoad(options, '/v1/usage-events/batch', (prefix, n) => eventJson(prefix, n, options.users), (events) => `{"events":[${events}]}`);
}

/**
 * POSTs `events` fresh events (`prefix`-0 ...) to /v1/usage-events/batch in requests of at most
 * `size`, one after another; throws unless every event is answered priced.
 */
export async function postEventBatches(api: { baseUrl: string; key: string }, prefix: string, events: number, size = 1000): Promise<void> {
  for (let from = 0; from < events; from += size) {
    const items = Array.from({ length: Math.min(size, events - from) }, (_, i) => eventJson(prefix, from + i));
    const response = await fetch(`${api.baseUrl}/v1/usage-events/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
      body: `{"events":[${items.join(',')}]}`,
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 200 || countOccurrences(text, '"status":"priced"') !== items.length) throw new Error(`batch of ${items.length} -> ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** POST /v1/usage-events, one fresh event per request. */
export function runSingleLoad(options: { baseUrl: LoadTarget; key: string; connections: number; durationS: number; prefix: string; signer?: GatewaySigner; dimensions?: boolean; users?: BenchUsers }): Promise<LoadResult> {
  let n = 0;
  const json = options.dimensions ? dimensionEventJson : (prefix: string, i: number) => eventJson(prefix, i, options.users);
  return runLoad({
    ...options,
    method: 'POST',
    path: '/v1/usage-events',
    body: () => json(options.prefix, n++),
    countPriced: (status, body) => (status === 201 && body.includes('"status":"priced"') ? { priced: 1, notPriced: 0 } : { priced: 0, notPriced: 1 }),
  });
}

/** GET /v1/contributors/:id/earnings over the whole seeded range, rotating over contributors. */
export function runEarningsLoad(options: { baseUrl: string; key: string; connections: number; durationS: number; contributorIds: string[]; from: string; to: string; groupBy: string }): Promise<LoadResult> {
  let n = 0;
  const query = `from=${options.from}&to=${options.to}&group_by=${encodeURIComponent(options.groupBy)}`;
  return runLoad({
    ...options,
    method: 'GET',
    path: '/',
    pathFor: () => `/v1/contributors/${options.contributorIds[n++ % options.contributorIds.length]}/earnings?${query}`,
    countPriced: (status) => (status === 200 ? { priced: 1, notPriced: 0 } : { priced: 0, notPriced: 1 }),
  });
}

/** Events stored in usage_events by status: the database's view of what a phase wrote. */
export async function countStoredEvents(databaseUrl: string): Promise<{ priced: number; other: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ priced: string; other: string }>(
      `SELECT count(*) FILTER (WHERE status = 'priced') AS priced, count(*) FILTER (WHERE status <> 'priced') AS other FROM usage_events`,
    );
    return { priced: Number(result.rows[0]!.priced), other: Number(result.rows[0]!.other) };
  } finally {
    await client.end();
  }
}
