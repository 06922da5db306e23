// npm run demo [-- --keep] [--no-build] [--serve]
// End to end on the local machine: Postgres + Redis, a fresh database, Anvil with test USDC, the
// API and the worker from dist/. Plays an admin and a gateway through the public API, runs a
// settlement on chain, then proves the money: per tier charge == payout + margin,
// charge == official x 1.3, payout == official x 1.1 / 1.2 (bigint sums over the event responses),
// paid == on-chain USDC, paid + payable == accrued, and the ledger check. Exits 0 only if every
// check holds. Always stops what it started; drops the demo database unless --keep.
// --serve: after the report, keeps the stack running with its data (plus fresh payable earnings and
// unpriced events to work on), prints the web console's URL and keys, and stops everything on Ctrl-C.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { parse as parseLossless, stringify as stringifyLossless, isLosslessNumber } from 'lossless-json';
import { createPublicClient, getAddress, http, toHex, type Address } from 'viem';
import { testUsdcAbi } from '../contracts/test-contracts.js';
import { publishUsageEvent, QUEUE_USAGE_EVENTS } from '../src/queue/usage-events.producer.js';
import { createRunDir, randomSuffix, REPO_ROOT, startApi, startBaseStack, startWorker } from './lib/bench-stack.js';
import { devChain, type Devchain } from './lib/devchain.js';
import { CleanupStack, sleep, type ManagedProcess } from './lib/processes.js';
import { seededRandom } from '../src/common/random/seeded-random.js';

// ---- Limits and fixed inputs ----------------------------------------------------------------

const BATCH_EVENTS = 300;
const BATCH_SIZE = 100;
const SINGLE_EVENTS = 40;
/** Calls fed through the LiteLLM push endpoint (as LiteLLM's generic_api callback would). */
const LITELLM_CALLS = 40;
const FETCH_CONCURRENCY = 16;
const HTTP_TIMEOUT_MS = 30_000;
const QUEUE_BILLED_TIMEOUT_MS = 30_000;
const SETTLEMENT_TIMEOUT_MS = 90_000;
const POLL_INTERVAL_MS = 250;
const USER_CREDIT_USD = '250';
const HOLD_AMOUNT_USD = '2';
const SETTLEMENT_MIN_PAYOUT_USD = '0.01';
const ATTO_PER_USD = 10n ** 18n;
const ATTO_PER_MICRO_USDC = 10n ** 12n;
const TOKENS_PER_MTOK = 1_000_000n;
/** Official multipliers as exact fractions (tenths): user 1.3, standard 1.1, premium 1.2. */
const MARKUP_TENTHS = 13n;
const TIER_TENTHS: Record<Tier, bigint> = { standard: 11n, premium: 12n };
const PRICE_FIXTURE = join(REPO_ROOT, 'test/fixtures/prices/model_prices_and_context_window.json');
const SSE_DIR = join(REPO_ROOT, 'test/fixtures/sse');

/** Models the gateway sends in plain events (official list prices from the LiteLLM fixture). */
const EVENT_MODELS = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'deepseek-chat', 'o4-mini'];
/** Recorded streams whose model has an official price; `promptTokens` for streams without usage. */
const SSE_CASES: Array<{ name: string; promptTokens?: number }> = [
  { name: '02-openai-usage-final-empty-choices' },
  { name: '03-openai-tool-single-fragmented' },
  { name: '04-openai-parallel-2-sequential', promptTokens: 310 },
  { name: '17-gemini-crlf-line-endings-multiline-data' },
  { name: '22-openai-finish-length-content' },
  { name: '24-gemini-no-index-parallel-calls-finish-stop' },
];
const SSE_MODELS = ['o4-mini-2025-04-16', 'gpt-4.1-2025-04-14', 'gpt-4o-2024-08-06', 'gemini-2.5-flash', 'gpt-4o-mini-2024-07-18'];

type Tier = 'standard' | 'premium';
const CONTRIBUTORS: Array<{ id: string; tier: Tier }> = [
  { id: 'c_std_ada', tier: 'standard' },
  { id: 'c_std_bob', tier: 'standard' },
  { id: 'c_prem_cy', tier: 'premium' },
  { id: 'c_prem_dee', tier: 'premium' },
];
const USERS = ['u_acme', 'u_globex', 'u_initech'];

const say = (line: string) => console.log(`[demo] ${line}`);
/** The API and worker, so a failure can say whether one of them died under us. */
const services: ManagedProcess[] = [];

// ---- Checks -------------------------------------------------------------------------------

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}
const checks: Check[] = [];

function check(name: string, ok: boolean, detail = ''): boolean {
  checks.push({ name, ok, detail });
  if (!ok) say(`CHECK FAILED: ${name}${detail ? ` (${detail})` : ''}`);
  return ok;
}

// ---- Exact money helpers (independent of the service's own code) ---------------------------

/** "0.0000195" -> atto-USD; throws on anything that is not an exact decimal string. */
function usdToAtto(text: unknown): bigint {
  if (typeof text !== 'string' || !/^-?\d+(\.\d{1,18})?$/.test(text)) throw new Error(`not a USD decimal string: ${JSON.stringify(text)}`);
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const atto = BigInt(whole!) * ATTO_PER_USD + BigInt(fraction.padEnd(18, '0'));
  return negative ? -atto : atto;
}

function attoToUsd(atto: bigint): string {
  const negative = atto < 0n;
  const abs = negative ? -atto : atto;
  const fraction = (abs % ATTO_PER_USD).toString().padStart(18, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / ATTO_PER_USD}${fraction ? `.${fraction}` : ''}`;
}

function microUsdcToUsd(micro: bigint): string {
  return attoToUsd(micro * ATTO_PER_MICRO_USDC);
}

/** LiteLLM's per-token decimal text ("2.5e-06") -> atto-USD per million tokens, exactly. */
function perTokenToAttoPerMtok(text: string): bigint {
  const match = /^(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`not a price: ${text}`);
  const fraction = match[2] ?? '';
  const digits = BigInt(match[1]! + fraction);
  const exponent = Number(match[3] ?? 0) - fraction.length + 18 + 6;
  if (exponent >= 0) return digits * 10n ** BigInt(exponent);
  const divisor = 10n ** BigInt(-exponent);
  if (digits % divisor !== 0n) throw new Error(`price ${text} is finer than 1e-24 USD per token`);
  return digits / divisor;
}

interface ModelPrice {
  inputAtto: bigint;
  outputAtto: bigint;
  cachedInputAtto: bigint | null;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

/** design.md: cached tokens are part of prompt tokens, reasoning part of completion tokens. */
function officialAtto(price: ModelPrice, usage: Usage): bigint {
  const uncached = BigInt(usage.prompt_tokens - usage.cached_tokens);
  const scaled =
    uncached * price.inputAtto +
    BigInt(usage.cached_tokens) * (price.cachedInputAtto ?? price.inputAtto) +
    BigInt(usage.completion_tokens) * price.outputAtto;
  if (scaled % TOKENS_PER_MTOK !== 0n) throw new Error('official cost is not a whole number of atto-USD');
  return scaled / TOKENS_PER_MTOK;
}

// ---- HTTP -----------------------------------------------------------------------------------

interface HttpResult {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON from the API, checked field by field
}

class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  withKey(key: string): ApiClient {
    return new ApiClient(this.baseUrl, key);
  }

  async call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<HttpResult> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text for the error message
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** The call must answer one of the statuses; otherwise the demo cannot go on. */
  async expect(statuses: number[], method: string, path: string, body?: unknown, contentType?: string): Promise<HttpResult> {
    const result = await this.call(method, path, body, contentType);
    if (!statuses.includes(result.status)) {
      throw new Error(`${method} ${path} -> ${result.status}, expected ${statuses.join('/')}: ${JSON.stringify(result.body).slice(0, 600)}`);
    }
    return result;
  }
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  });
  await Promise.all(runners);
  return results;
}

// ---- Tallies ---------------------------------------------------------------------------------

interface PricedEvent {
  event_id: string;
  model: string;
  contributor_id: string;
  user_id: string;
  contributor_tier: string;
  usage: Usage;
  official_usd: string;
  charge_usd: string;
  payout_usd: string;
  margin_usd: string;
}

interface Totals {
  events: number;
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

const zeroTotals = (): Totals => ({ events: 0, officialAtto: 0n, chargeAtto: 0n, payoutAtto: 0n, marginAtto: 0n });
/** The money fields of a Totals: added up in one place, for one event and across the tiers. */
const TOTALS_ATTO_FIELDS = ['officialAtto', 'chargeAtto', 'payoutAtto', 'marginAtto'] as const;

function addTotals(into: Totals, from: Totals): void {
  into.events += from.events;
  for (const field of TOTALS_ATTO_FIELDS) into[field] += from[field];
}

class Tally {
  readonly byTier: Record<Tier, Totals> = { standard: zeroTotals(), premium: zeroTotals() };
  readonly payoutByContributor = new Map<string, bigint>();
  readonly chargeByUser = new Map<string, bigint>();
  readonly seen = new Set<string>();
  badEvents: string[] = [];

  constructor(
    private readonly prices: Map<string, ModelPrice>,
    private readonly tiers: Map<string, Tier>,
  ) {}

  /** Adds one priced event response, checking its amounts against our own maths. */
  add(event: PricedEvent): void {
    if (this.seen.has(event.event_id)) throw new Error(`event ${event.event_id} tallied twice`);
    this.seen.add(event.event_id);
    const problem = this.problemOf(event);
    if (problem) this.badEvents.push(`${event.event_id}: ${problem}`);
    const tier = this.tiers.get(event.contributor_id)!;
    const amounts: Totals = {
      events: 1,
      officialAtto: usdToAtto(event.official_usd),
      chargeAtto: usdToAtto(event.charge_usd),
      payoutAtto: usdToAtto(event.payout_usd),
      marginAtto: usdToAtto(event.margin_usd),
    };
    addTotals(this.byTier[tier], amounts);
    this.payoutByContributor.set(event.contributor_id, (this.payoutByContributor.get(event.contributor_id) ?? 0n) + amounts.payoutAtto);
    this.chargeByUser.set(event.user_id, (this.chargeByUser.get(event.user_id) ?? 0n) + amounts.chargeAtto);
  }

  private problemOf(event: PricedEvent): string | null {
    const price = this.prices.get(event.model);
    const tier = this.tiers.get(event.contributor_id);
    if (!price) return `model ${event.model} has no demo price`;
    if (!tier || event.contributor_tier !== tier) return `tier ${event.contributor_tier}, expected ${tier}`;
    const official = usdToAtto(event.official_usd);
    const charge = usdToAtto(event.charge_usd);
    const payout = usdToAtto(event.payout_usd);
    const margin = usdToAtto(event.margin_usd);
    const expected = officialAtto(price, event.usage);
    if (official !== expected) return `official ${event.official_usd}, expected ${attoToUsd(expected)}`;
    if (charge * 10n !== official * MARKUP_TENTHS) return `charge ${event.charge_usd} != 1.3 x official`;
    if (payout * 10n !== official * TIER_TENTHS[tier]) return `payout ${event.payout_usd} != ${tier} multiplier x official`;
    if (charge !== payout + margin) return 'charge != payout + margin';
    return null;
  }

  total(): Totals {
    const all = zeroTotals();
    for (const totals of Object.values(this.byTier)) addTotals(all, totals);
    return all;
  }
}

// ---- Set-up through the admin API --------------------------------------------------------------

interface DemoContext {
  runId: string;
  admin: ApiClient;
  gateway: ApiClient;
  prices: Map<string, ModelPrice>;
  priceDocumentText: string;
  addresses: Map<string, Address>;
  tally: Tally;
  redisUrl: string;
  queuePrefix: string;
  devchain: Devchain;
}

/** The LiteLLM fixture reduced to the demo's models, numbers kept as their decimal text. */
function demoPriceDocument(): { text: string; prices: Map<string, ModelPrice> } {
  const document = parseLossless(readFileSync(PRICE_FIXTURE, 'utf8')) as Record<string, Record<string, unknown>>;
  const chosen: Record<string, unknown> = {};
  const prices = new Map<string, ModelPrice>();
  for (const model of [...EVENT_MODELS, ...SSE_MODELS]) {
    const entry = document[model];
    if (!entry) throw new Error(`model ${model} is not in ${PRICE_FIXTURE}`);
    chosen[model] = entry;
    const text = (field: string) => {
      const value = entry[field];
      return isLosslessNumber(value) ? value.value : null;
    };
    const cached = text('cache_read_input_token_cost');
    prices.set(model, {
      inputAtto: perTokenToAttoPerMtok(text('input_cost_per_token')!),
      outputAtto: perTokenToAttoPerMtok(text('output_cost_per_token')!),
      cachedInputAtto: cached === null ? null : perTokenToAttoPerMtok(cached),
    });
  }
  return { text: stringifyLossless(chosen)!, prices };
}

async function seedPrices(admin: ApiClient, documentText: string, prices: Map<string, ModelPrice>): Promise<void> {
  // In force since yesterday, so every event of this run (occurred_at = now) is priced.
  const effectiveFrom = new Date(Date.now() - 24 * 3600_000).toISOString();
  const result = await admin.expect([201], 'POST', `/v1/admin/prices/import?effective_from=${encodeURIComponent(effectiveFrom)}`, documentText);
  // `imported` counts versions: a model's service tiers (batch, flex, priority) are versions too.
  const skipped = (result.body.skipped as Array<{ model: string }>).filter((s) => prices.has(s.model));
  check('price import took every demo model', skipped.length === 0 && result.body.imported >= prices.size, `imported ${result.body.imported} versions for ${prices.size} models, skipped ${JSON.stringify(skipped)}`);
  const listed = await admin.expect([200], 'GET', '/v1/admin/prices');
  for (const [model, price] of prices) {
    const row = (listed.body.data as Array<Record<string, string | null>>).find((p) => p.model === model && p.variant === 'standard');
    const same =
      row !== undefined &&
      usdToAtto(row.input_usd_per_mtok) === price.inputAtto &&
      usdToAtto(row.output_usd_per_mtok) === price.outputAtto &&
      (row.cached_input_usd_per_mtok === null ? null : usdToAtto(row.cached_input_usd_per_mtok)) === price.cachedInputAtto;
    check(`price of ${model} equals the official list price`, same, JSON.stringify(row));
  }
  say(`prices: ${prices.size} models imported from the LiteLLM catalog (official list prices, exact)`);
}

async function seedParties(context: DemoContext): Promise<void> {
  const { admin } = context;
  for (const contributor of CONTRIBUTORS) {
    const address = getAddress(toHex(randomBytes(20)));
    context.addresses.set(contributor.id, address);
    await admin.expect([201], 'PUT', `/v1/admin/contributors/${contributor.id}`, { tier: contributor.tier, payout_address: address });
  }
  for (const user of USERS) {
    await admin.expect([201], 'POST', `/v1/admin/users/${user}/credits`, { amount_usd: USER_CREDIT_USD, reference: `demo-topup-${context.runId}-${user}` });
  }
  const key = await admin.expect([201], 'POST', '/v1/admin/api-keys', { role: 'gateway', name: 'demo gateway' });
  context.gateway = admin.withKey(key.body.key as string);
  say(`parties: ${CONTRIBUTORS.length} contributors (2 standard, 2 premium, fresh payout addresses), ${USERS.length} users with ${USER_CREDIT_USD} USD credit each, a gateway key`);
}

// ---- Gateway traffic -----------------------------------------------------------------------------


function randomEvent(runId: string, kind: string, index: number, random: () => number) {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const prompt = 200 + Math.floor(random() * 6000);
  const completion = 20 + Math.floor(random() * 1500);
  const model = pick(EVENT_MODELS);
  return {
    event_id: `demo-${runId}-${kind}-${index}`,
    user_id: pick(USERS),
    contributor_id: pick(CONTRIBUTORS).id,
    model,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      cached_tokens: random() < 0.4 ? Math.floor(prompt * random() * 0.8) : 0,
      reasoning_tokens: model === 'o4-mini' ? Math.floor(completion * 0.6) : 0,
    },
    metadata: { stream_id: `s-${kind}-${index}` },
  };
}

async function fetchPriced(context: DemoContext, eventIds: string[]): Promise<void> {
  const events = await mapLimit(eventIds, FETCH_CONCURRENCY, (id) => context.gateway.expect([200], 'GET', `/v1/usage-events/${encodeURIComponent(id)}`));
  for (const event of events) context.tally.add(event.body as PricedEvent);
}

async function playBatches(context: DemoContext, random: () => number): Promise<void> {
  const ids: string[] = [];
  let notPriced = 0;
  for (let start = 0; start < BATCH_EVENTS; start += BATCH_SIZE) {
    const events = Array.from({ length: BATCH_SIZE }, (_, i) => randomEvent(context.runId, 'batch', start + i, random));
    const result = await context.gateway.expect([200], 'POST', '/v1/usage-events/batch', { events });
    for (const item of result.body.results as Array<{ event_id: string; status: string }>) {
      if (item.status === 'priced') ids.push(item.event_id);
      else notPriced += 1;
    }
  }
  check(`batch: all ${BATCH_EVENTS} events priced`, notPriced === 0 && ids.length === BATCH_EVENTS, `${notPriced} not priced`);
  await fetchPriced(context, ids);
  say(`batch: ${BATCH_EVENTS} events in ${BATCH_EVENTS / BATCH_SIZE} batches of ${BATCH_SIZE}, all priced`);
}

/**
 * A LiteLLM proxy's generic_api callback: one deployment per contributor mapped through the admin
 * API, then a json_array batch of StandardLoggingPayloads (messages included, never stored) with
 * one failed call; each call must be billed at its official price exactly like a usage event.
 */
async function playLitellm(context: DemoContext, random: () => number): Promise<void> {
  const { admin } = context;
  const deployment = (contributorId: string) => `demo-dep-${contributorId}`;
  for (const contributor of CONTRIBUTORS) {
    await admin.expect([201], 'PUT', `/v1/admin/integrations/litellm/deployments/${deployment(contributor.id)}`, { contributor_id: contributor.id });
  }
  const endTime = Date.now() / 1000;
  const payloads = Array.from({ length: LITELLM_CALLS }, (_, i) => {
    const event = randomEvent(context.runId, 'litellm', i, random);
    const id = `demo-${context.runId}-litellm-${i}`;
    return {
      id,
      call_type: 'acompletion',
      status: i === LITELLM_CALLS - 1 ? 'failure' : 'success',
      endTime,
      model: event.model,
      model_id: deployment(event.contributor_id),
      model_map_information: { model_map_key: event.model, model_map_value: null },
      metadata: { user_api_key_user_id: event.user_id, user_api_key_hash: `hash-${event.user_id}` },
      messages: [{ role: 'user', content: 'What is the status of order 48213-A?' }],
      response: {
        id,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'It is at the Lyon delivery facility.' } }],
        usage: {
          prompt_tokens: event.usage.prompt_tokens,
          completion_tokens: event.usage.completion_tokens,
          total_tokens: event.usage.prompt_tokens + event.usage.completion_tokens,
          prompt_tokens_details: { cached_tokens: event.usage.cached_tokens },
          completion_tokens_details: { reasoning_tokens: event.usage.reasoning_tokens },
        },
      },
      response_cost: 0.001,
    };
  });
  const result = await context.gateway.expect([200], 'POST', '/v1/integrations/litellm', payloads);
  const results = result.body.results as Array<{ event_id: string; status: string; reason?: string }>;
  const priced = results.filter((r) => r.status === 'priced').map((r) => r.event_id);
  check(`litellm: ${LITELLM_CALLS - 1} calls priced`, priced.length === LITELLM_CALLS - 1, JSON.stringify(results.filter((r) => r.status !== 'priced')).slice(0, 300));
  check('litellm: the failed call skipped', results.at(-1)?.status === 'skipped' && results.at(-1)?.reason === 'failure', JSON.stringify(results.at(-1)));
  await fetchPriced(context, priced);
  const replay = await context.gateway.expect([200], 'POST', '/v1/integrations/litellm', payloads.slice(0, 3));
  check('litellm: a replayed batch is answered duplicate', (replay.body.results as Array<{ status: string }>).every((r) => r.status === 'duplicate'), JSON.stringify(replay.body.results));
  say(`litellm: ${LITELLM_CALLS} StandardLoggingPayloads through POST /v1/integrations/litellm, ${CONTRIBUTORS.length} deployments mapped, ${priced.length} priced, 1 failure skipped`);
}

async function playSingles(context: DemoContext, random: () => number): Promise<Record<string, unknown>> {
  let first: Record<string, unknown> | null = null;
  for (let i = 0; i < SINGLE_EVENTS; i += 1) {
    const event = randomEvent(context.runId, 'single', i, random);
    first ??= event;
    const result = await context.gateway.expect([201], 'POST', '/v1/usage-events', event);
    context.tally.add(result.body as PricedEvent);
  }
  say(`single: ${SINGLE_EVENTS} events, each 201 priced`);
  return first!;
}

function fixtureUsage(expected: { usage: null | Record<string, number> }): Usage | null {
  if (!expected.usage) return null;
  return {
    prompt_tokens: expected.usage.prompt_tokens!,
    completion_tokens: expected.usage.completion_tokens!,
    cached_tokens: expected.usage.cached_tokens ?? 0,
    reasoning_tokens: expected.usage.reasoning_tokens ?? 0,
  };
}

async function playStreams(context: DemoContext): Promise<void> {
  let index = 0;
  for (const sse of SSE_CASES) {
    const body = readFileSync(join(SSE_DIR, `${sse.name}.sse`));
    const expected = JSON.parse(readFileSync(join(SSE_DIR, `${sse.name}.expected.json`), 'utf8'));
    const params = new URLSearchParams({
      event_id: `demo-${context.runId}-sse-${sse.name}`,
      user_id: USERS[index % USERS.length]!,
      contributor_id: CONTRIBUTORS[index % CONTRIBUTORS.length]!.id,
    });
    if (sse.promptTokens !== undefined) params.set('prompt_tokens', String(sse.promptTokens));
    index += 1;
    const result = await context.gateway.expect([201], 'POST', `/v1/usage-events/stream?${params}`, new Uint8Array(body), 'text/event-stream');
    checkStream(sse, expected, result.body);
    context.tally.add(result.body as PricedEvent);
  }
  say(`streams: ${SSE_CASES.length} recorded SSE streams billed (tool calls reassembled, provider usage billed exactly)`);
}

function checkStream(sse: (typeof SSE_CASES)[number], expected: any, body: any): void {
  const usage = fixtureUsage(expected);
  const billed = body.usage as Usage;
  if (usage) {
    check(`stream ${sse.name}: billed usage == fixture usage`, JSON.stringify(billed) === JSON.stringify(usage), `${JSON.stringify(billed)} vs ${JSON.stringify(usage)}`);
    check(`stream ${sse.name}: usage_source provider`, body.stream?.usage_source === 'provider', body.stream?.usage_source);
  } else {
    check(`stream ${sse.name}: estimated usage with the given prompt tokens`, body.stream?.usage_source === 'estimated' && billed.prompt_tokens === sse.promptTokens && billed.completion_tokens > 0, JSON.stringify(billed));
  }
  const wantCalls = (expected.tool_calls as Array<any>).map((c) => ({ index: c.index, id: c.id, name: c.name, arguments_valid: !c.arguments_error }));
  const gotCalls = ((body.stream?.tool_calls ?? []) as Array<any>).map((c) => ({ index: c.index, id: c.id, name: c.name, arguments_valid: c.arguments_valid }));
  check(`stream ${sse.name}: tool calls == fixture`, JSON.stringify(gotCalls) === JSON.stringify(wantCalls), JSON.stringify(gotCalls));
  check(`stream ${sse.name}: finish_reason == fixture`, body.stream?.finish_reason === expected.finish_reason, String(body.stream?.finish_reason));
}

async function playHold(context: DemoContext, random: () => number): Promise<void> {
  const holdId = `demo-${context.runId}-hold`;
  const user = USERS[0]!;
  const hold = await context.gateway.expect([201], 'POST', '/v1/holds', { hold_id: holdId, user_id: user, amount_usd: HOLD_AMOUNT_USD, expires_in_seconds: 600 });
  check('hold: created active', hold.body.status === 'active', hold.body.status);
  const during = await context.gateway.expect([200], 'GET', `/v1/users/${user}/balance`);
  check('hold: reserved on the user balance', usdToAtto(during.body.held_usd) === usdToAtto(HOLD_AMOUNT_USD), during.body.held_usd);
  const event = { ...randomEvent(context.runId, 'held', 0, random), user_id: user, hold_id: holdId };
  const billed = await context.gateway.expect([201], 'POST', '/v1/usage-events', event);
  context.tally.add(billed.body as PricedEvent);
  const after = await context.gateway.expect([200], 'GET', `/v1/holds/${holdId}`);
  check('hold: captured with the actual charge', after.body.status === 'captured' && after.body.captured_usd === billed.body.charge_usd, `${after.body.status} ${after.body.captured_usd}`);
  const released = await context.gateway.expect([200], 'GET', `/v1/users/${user}/balance`);
  check('hold: the rest released', usdToAtto(released.body.held_usd) === 0n, released.body.held_usd);
  say(`hold: ${HOLD_AMOUNT_USD} USD reserved, captured ${billed.body.charge_usd} USD, rest released`);
}

async function playDuplicateAndBad(context: DemoContext, firstSingle: Record<string, unknown>): Promise<void> {
  const replay = await context.gateway.call('POST', '/v1/usage-events', firstSingle);
  check('duplicate: 200 with Idempotent-Replayed', replay.status === 200 && replay.headers.get('idempotent-replayed') === 'true', `status ${replay.status}`);
  const bad = { ...randomEvent(context.runId, 'bad', 0, Math.random), usage: { prompt_tokens: 10, completion_tokens: 5, cached_tokens: 50, reasoning_tokens: 0 } };
  const rejected = await context.gateway.call('POST', '/v1/usage-events', bad);
  check('bad event: 400 validation_failed', rejected.status === 400 && rejected.body?.error?.code === 'validation_failed', `status ${rejected.status} ${JSON.stringify(rejected.body).slice(0, 200)}`);
  const stored = await context.gateway.call('GET', `/v1/usage-events/${bad.event_id}`);
  check('bad event: not stored', stored.status === 404, `status ${stored.status}`);
  say(`duplicate: replayed with 200 (not billed twice); bad event (cached > prompt tokens): 400 ${rejected.body?.error?.code}`);
}

async function playQueue(context: DemoContext, random: () => number): Promise<void> {
  const queue = new Queue(QUEUE_USAGE_EVENTS, { connection: { url: context.redisUrl, maxRetriesPerRequest: 1 }, prefix: context.queuePrefix });
  const event = randomEvent(context.runId, 'queued', 0, random);
  try {
    await publishUsageEvent(queue, event);
  } finally {
    await queue.close();
  }
  const deadline = Date.now() + QUEUE_BILLED_TIMEOUT_MS;
  for (;;) {
    const found = await context.gateway.call('GET', `/v1/usage-events/${event.event_id}`);
    if (found.status === 200 && found.body.status === 'priced') {
      context.tally.add(found.body as PricedEvent);
      say(`queue: job ${event.event_id} on BullMQ "${QUEUE_USAGE_EVENTS}" billed by the worker`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`queued event ${event.event_id} not billed within ${QUEUE_BILLED_TIMEOUT_MS} ms (last: ${found.status})`);
    await sleep(POLL_INTERVAL_MS);
  }
}

// ---- Settlement and balances -------------------------------------------------------------------

const SETTLEMENT_DONE = new Set(['confirmed', 'partially_failed', 'failed']);

async function runSettlement(context: DemoContext): Promise<any> {
  const created = await context.admin.expect([201], 'POST', '/v1/admin/settlements', {});
  const id = created.body.settlement_id as string;
  say(`settlement ${id}: ${created.body.payout_count} payouts, ${created.body.total_usdc} USDC, status ${created.body.status}`);
  if (created.body.status === 'pending_approval') {
    await context.admin.expect([200], 'POST', `/v1/admin/settlements/${id}/approve`, {});
    say(`settlement ${id}: approved`);
  }
  const deadline = Date.now() + SETTLEMENT_TIMEOUT_MS;
  let lastStatus = '';
  for (;;) {
    const detail = await context.admin.expect([200], 'GET', `/v1/admin/settlements/${id}`);
    if (detail.body.status !== lastStatus) say(`settlement ${id}: ${detail.body.status}`);
    lastStatus = detail.body.status;
    if (SETTLEMENT_DONE.has(lastStatus)) return detail.body;
    if (Date.now() > deadline) throw new Error(`settlement ${id} still ${lastStatus} after ${SETTLEMENT_TIMEOUT_MS} ms`);
    await sleep(POLL_INTERVAL_MS);
  }
}

const lineContributor = (line: any): string => line.contributor_id ?? line.contributor;
const lineAddress = (line: any): string => line.payout_address ?? line.address;
const txHash = (tx: any): string => tx.tx_hash ?? tx.hash;

function checkSettlement(context: DemoContext, settlement: any, accruedBefore: Map<string, bigint>): void {
  check('settlement confirmed', settlement.status === 'confirmed', settlement.status);
  const lines = (settlement.lines ?? []) as any[];
  check('settlement pays every contributor', lines.length === CONTRIBUTORS.length, `${lines.length} lines`);
  for (const line of lines) {
    const contributor = lineContributor(line);
    const expectedMicro = (accruedBefore.get(contributor) ?? 0n) / ATTO_PER_MICRO_USDC;
    const amount = usdToAtto(line.amount_usdc) / ATTO_PER_MICRO_USDC;
    check(`line ${contributor}: payable truncated to micro-USDC`, amount === expectedMicro, `${line.amount_usdc} vs ${microUsdcToUsd(expectedMicro)}`);
    check(`line ${contributor}: paid to its payout address`, getAddress(lineAddress(line)) === context.addresses.get(contributor), lineAddress(line));
    check(`line ${contributor}: paid`, line.status === 'paid', line.status);
  }
  const txs = (settlement.transactions ?? []) as any[];
  check('settlement has confirmed transactions', txs.length > 0 && txs.every((tx) => tx.status === 'confirmed'), txs.map((tx) => tx.status).join(','));
}

/** The service's own reconciliation: on-chain USDC Transfer events vs paid lines. */
async function checkReconciliation(context: DemoContext, settlementId: string): Promise<void> {
  const result = await context.admin.call('POST', `/v1/admin/settlements/${settlementId}/reconcile`, {});
  if (result.status === 404) {
    say('note: settlement reconciliation endpoint not available in this build');
    return;
  }
  const r = result.body;
  say(`reconciliation: ok=${r.ok}, ${r.paid_lines} paid lines vs ${r.chain_payouts} on-chain transfers (${r.chain_total_micro_usdc} micro-USDC)`);
  check('reconciliation: chain transfers == paid lines', result.status === 200 && r.ok === true, JSON.stringify(r).slice(0, 300));
}

async function onChainMicroUsdc(devchain: Devchain, addresses: Map<string, Address>): Promise<Map<string, bigint>> {
  const client = createPublicClient({ chain: devChain(devchain.rpcUrl), transport: http(devchain.rpcUrl) });
  const balances = new Map<string, bigint>();
  for (const [contributor, address] of addresses) {
    balances.set(contributor, (await client.readContract({ address: devchain.usdcAddress, abi: testUsdcAbi, functionName: 'balanceOf', args: [address] })) as bigint);
  }
  return balances;
}

async function contributorBalances(context: DemoContext): Promise<Map<string, any>> {
  const balances = new Map<string, any>();
  for (const { id } of CONTRIBUTORS) balances.set(id, (await context.admin.expect([200], 'GET', `/v1/contributors/${id}/balance`)).body);
  return balances;
}

function checkAccrued(context: DemoContext, balances: Map<string, any>): Map<string, bigint> {
  const accrued = new Map<string, bigint>();
  for (const { id } of CONTRIBUTORS) {
    const balance = balances.get(id);
    const expected = context.tally.payoutByContributor.get(id) ?? 0n;
    accrued.set(id, usdToAtto(balance.accrued_usd));
    check(`${id}: accrued == sum of its event payouts`, usdToAtto(balance.accrued_usd) === expected, `${balance.accrued_usd} vs ${attoToUsd(expected)}`);
    check(`${id}: all accrued is payable before settlement`, usdToAtto(balance.payable_usd) === expected, balance.payable_usd);
  }
  return accrued;
}

async function checkUsers(context: DemoContext): Promise<void> {
  for (const user of USERS) {
    const balance = (await context.admin.expect([200], 'GET', `/v1/users/${user}/balance`)).body;
    const expected = usdToAtto(USER_CREDIT_USD) - (context.tally.chargeByUser.get(user) ?? 0n);
    check(`${user}: balance == credit - charges`, usdToAtto(balance.balance_usd) === expected, `${balance.balance_usd} vs ${attoToUsd(expected)}`);
  }
}

function checkPaid(balancesAfter: Map<string, any>, onChain: Map<string, bigint>, accruedBefore: Map<string, bigint>): void {
  for (const { id } of CONTRIBUTORS) {
    const b = balancesAfter.get(id);
    const paid = usdToAtto(b.paid_usd);
    const payable = usdToAtto(b.payable_usd);
    const chain = (onChain.get(id) ?? 0n) * ATTO_PER_MICRO_USDC;
    check(`${id}: paid == on-chain USDC balance`, paid === chain, `${b.paid_usd} vs ${attoToUsd(chain)}`);
    check(`${id}: paid + payable == accrued`, paid + payable === usdToAtto(b.accrued_usd) && usdToAtto(b.in_settlement_usd) === 0n, `${b.paid_usd} + ${b.payable_usd} vs ${b.accrued_usd}`);
    check(`${id}: accrued unchanged by settlement`, usdToAtto(b.accrued_usd) === accruedBefore.get(id), b.accrued_usd);
  }
}

// ---- Report -------------------------------------------------------------------------------------

function pad(text: string, width: number, left = false): string {
  return left ? text.padEnd(width) : text.padStart(width);
}

function printMoneyReport(tally: Tally): void {
  const header = ['tier', 'events', 'official_usd', 'charged_usd', 'contributor_earnings_usd', 'margin_usd'];
  const widths = [10, 7, 22, 22, 26, 22];
  const row = (cells: string[]) => console.log('  ' + cells.map((c, i) => pad(c, widths[i]!, i === 0)).join(' '));
  console.log('\nMoney per tier (exact decimal USD, summed as bigint over every billed event response):');
  row(header);
  const rows: Array<[string, Totals]> = [['standard', tally.byTier.standard], ['premium', tally.byTier.premium], ['total', tally.total()]];
  for (const [name, t] of rows) {
    row([name, String(t.events), attoToUsd(t.officialAtto), attoToUsd(t.chargeAtto), attoToUsd(t.payoutAtto), attoToUsd(t.marginAtto)]);
  }
  const mark = (ok: boolean) => (ok ? 'ok' : 'FAILED');
  for (const [name, t] of rows) {
    const split = check(`${name}: charge == payout + margin`, t.chargeAtto === t.payoutAtto + t.marginAtto);
    const markup = check(`${name}: charge == official x 1.3`, t.chargeAtto * 10n === t.officialAtto * MARKUP_TENTHS);
    let payoutLine = '';
    if (name !== 'total') {
      const tenths = TIER_TENTHS[name as Tier];
      const payout = check(`${name}: payout == official x ${formatTenths(tenths)}`, t.payoutAtto * 10n === t.officialAtto * tenths);
      payoutLine = `, payout == official x ${formatTenths(tenths)} ${mark(payout)}`;
    }
    console.log(`  ${pad(name, 10, true)} charge == payout + margin ${mark(split)}, charge == official x 1.3 ${mark(markup)}${payoutLine}`);
  }
  check('every event priced at the official price with the right split', tally.badEvents.length === 0, tally.badEvents.slice(0, 5).join('; '));
}

const formatTenths = (tenths: bigint) => `${tenths / 10n}.${tenths % 10n}`;

function printSettlement(settlement: any): void {
  const lines = (settlement.lines ?? []) as any[];
  const txs = (settlement.transactions ?? []) as any[];
  const gas = txs.reduce((sum, tx) => sum + BigInt(tx.gas_used ?? 0), 0n);
  console.log(`\nSettlement ${settlement.settlement_id ?? settlement.id}: ${settlement.status}, ${lines.length} payouts, ${settlement.total_usdc} USDC`);
  for (const line of lines) console.log(`  ${pad(lineContributor(line), 12, true)} ${lineAddress(line)} ${pad(String(line.amount_usdc), 12)} USDC  ${line.status}`);
  for (const tx of txs) console.log(`  tx ${txHash(tx)} nonce ${tx.nonce} block ${tx.block ?? tx.block_number} gas ${tx.gas_used} ${tx.status}`);
  if (lines.length > 0) console.log(`  gas per recipient: ${gas / BigInt(lines.length)} (${gas} gas / ${lines.length} recipients)`);
}

function printBalances(balances: Map<string, any>, onChain: Map<string, bigint>): void {
  console.log('\nContributor balances after payout (USD; on-chain = USDC balanceOf the payout address):');
  for (const { id, tier } of CONTRIBUTORS) {
    const b = balances.get(id);
    console.log(`  ${pad(id, 12, true)} ${pad(tier, 8, true)} accrued ${pad(b.accrued_usd, 24)}  paid ${pad(b.paid_usd, 12)}  payable ${pad(b.payable_usd, 24)}  on-chain ${microUsdcToUsd(onChain.get(id) ?? 0n)}`);
  }
}

function printChecks(): boolean {
  const failed = checks.filter((c) => !c.ok);
  console.log(`\nChecks: ${checks.length - failed.length} passed, ${failed.length} failed`);
  for (const c of failed) console.log(`  FAILED ${c.name}${c.detail ? `: ${c.detail}` : ''}`);
  return failed.length === 0;
}

// ---- Main -------------------------------------------------------------------------------------

async function startStack(runId: string, runDir: string, cleanup: CleanupStack, options: { keep: boolean; noBuild: boolean }) {
  const { queues, devchain, adminKey, env: baseEnv } = await startBaseStack({ name: 'demo', runId, runDir, cleanup, keep: options.keep, noBuild: options.noBuild, log: say });
  const env: Record<string, string> = {
    ...baseEnv,
    // The report checks 1.3 / 1.1 / 1.2: pin them so an exported variable cannot change them.
    USER_MARKUP: '1.3',
    PAYOUT_STANDARD: '1.1',
    PAYOUT_PREMIUM: '1.2',
    SETTLEMENT_CONFIRMATIONS: '1',
    SETTLEMENT_MIN_PAYOUT_USD,
    LOG_LEVEL: 'info',
  };
  const { api, baseUrl } = await startApi({ runDir, env });
  cleanup.add('stop api', () => api.stop());
  const worker = await startWorker({ runDir, env });
  cleanup.add('stop worker', () => worker.stop());
  say(`api ${baseUrl} ready (pid ${api.pid}), worker started (pid ${worker.pid}); logs in ${runDir}`);
  services.push(api, worker);
  return { devchain, redisUrl: queues.redisUrl, queuePrefix: queues.prefix, admin: new ApiClient(baseUrl, adminKey), adminKey, baseUrl };
}

async function playAndCheck(context: DemoContext): Promise<void> {
  const random = seededRandom(20261129);
  await seedPrices(context.admin, context.priceDocumentText, context.prices);
  await seedParties(context);
  await playBatches(context, random);
  const firstSingle = await playSingles(context, random);
  await playStreams(context);
  await playLitellm(context, random);
  await playHold(context, random);
  await playDuplicateAndBad(context, firstSingle);
  await playQueue(context, random);
  printMoneyReport(context.tally);
  await checkUsers(context);
  const accruedBefore = checkAccrued(context, await contributorBalances(context));

  const settlement = await runSettlement(context);
  printSettlement(settlement);
  checkSettlement(context, settlement, accruedBefore);
  await checkReconciliation(context, settlement.settlement_id);
  const balancesAfter = await contributorBalances(context);
  const onChain = await onChainMicroUsdc(context.devchain, context.addresses);
  printBalances(balancesAfter, onChain);
  checkPaid(balancesAfter, onChain, accruedBefore);
  await printStatement(context, balancesAfter);
  await printLedgerCheck(context);
  await playRefundAfterSettlement(context, String(firstSingle.event_id));
}

// ---- A refund after settlement: the contributor goes negative, the next settlement nets it ----

const REFUND_NEW_EVENTS = 30;

async function playRefundAfterSettlement(context: DemoContext, eventId: string): Promise<void> {
  const event = (await context.admin.expect([200], 'GET', `/v1/usage-events/${eventId}`)).body;
  const contributorId = String(event.contributor_id);
  const chargeAtto = usdToAtto(event.charge_usd);
  const payoutAtto = usdToAtto(event.payout_usd);
  const payableBefore = usdToAtto((await context.admin.expect([200], 'GET', `/v1/contributors/${contributorId}/balance`)).body.payable_usd);
  const userBefore = usdToAtto((await context.admin.expect([200], 'GET', `/v1/users/${event.user_id}/balance`)).body.balance_usd);
  // A full refund of an already-paid event, in three parts (the last one: everything left).
  const third = attoToUsd(chargeAtto / 3n);
  let clawedAtto = 0n;
  let marginAtto = 0n;
  for (const [i, amount] of [third, third, undefined].entries()) {
    const refund = await context.admin.expect([201], 'POST', `/v1/admin/usage-events/${eventId}/refunds`, {
      refund_id: `demo-refund-${context.runId}-${i}`,
      reason: 'demo: disputed request',
      ...(amount ? { amount_usd: amount } : {}),
    });
    clawedAtto += usdToAtto(refund.body.contributor_clawback_usd);
    marginAtto += usdToAtto(refund.body.margin_reversed_usd);
    say(`refund ${i + 1}/3 of ${eventId}: ${refund.body.amount_usd} to the user, ${refund.body.contributor_clawback_usd} clawed back from ${contributorId}`);
  }
  const userAfter = usdToAtto((await context.admin.expect([200], 'GET', `/v1/users/${event.user_id}/balance`)).body.balance_usd);
  const payableAfter = usdToAtto((await context.admin.expect([200], 'GET', `/v1/contributors/${contributorId}/balance`)).body.payable_usd);
  const list = await context.admin.expect([200], 'GET', '/v1/admin/contributors?limit=500');
  const debt = (list.body.data as any[]).find((c) => c.id === contributorId)?.debt_usd;
  console.log(`\nRefund after settlement: ${contributorId} payable ${attoToUsd(payableBefore)} -> ${attoToUsd(payableAfter)} (debt ${debt})`);
  check('refund: the user is restored exactly', userAfter - userBefore === chargeAtto, `${attoToUsd(userAfter - userBefore)} vs ${event.charge_usd}`);
  check('refund: three parts claw back exactly the payout', clawedAtto === payoutAtto, `${attoToUsd(clawedAtto)} vs ${event.payout_usd}`);
  check('refund: three parts reverse exactly the margin', marginAtto === usdToAtto(event.margin_usd), attoToUsd(marginAtto));
  check('refund: payable is exactly minus the payout', payableAfter === payableBefore - payoutAtto, attoToUsd(payableAfter));
  check('refund: the admin list shows the debt', payableAfter >= 0n || usdToAtto(debt) === -payableAfter, String(debt));

  // New earnings for that contributor; the next settlement pays them minus the debt.
  const random = seededRandom(20261216);
  let earnedAtto = 0n;
  for (let i = 0; i < REFUND_NEW_EVENTS; i += 1) {
    const result = await context.gateway.expect([201], 'POST', '/v1/usage-events', { ...randomEvent(context.runId, 'after-refund', i, random), contributor_id: contributorId });
    earnedAtto += usdToAtto(result.body.payout_usd);
  }
  const netAtto = payableAfter + earnedAtto;
  const expectedMicro = netAtto / ATTO_PER_MICRO_USDC;
  const address = context.addresses.get(contributorId)!;
  const chainBefore = (await onChainMicroUsdc(context.devchain, new Map([[contributorId, address]]))).get(contributorId)!;
  const settlement = await runSettlement(context);
  const line = ((settlement.lines ?? []) as any[]).find((l) => l.contributor_id === contributorId);
  const chainAfter = (await onChainMicroUsdc(context.devchain, new Map([[contributorId, address]]))).get(contributorId)!;
  console.log(`Next settlement: earned ${attoToUsd(earnedAtto)} - debt ${attoToUsd(-payableAfter)} = ${attoToUsd(netAtto)}; paid ${line?.amount_usdc} USDC on chain`);
  check('netting settlement confirmed', settlement.status === 'confirmed', settlement.status);
  check('netting settlement pays earnings minus the debt', line !== undefined && usdToAtto(line.amount_usdc) === expectedMicro * ATTO_PER_MICRO_USDC, String(line?.amount_usdc));
  check('on-chain amount equals the net', chainAfter - chainBefore === expectedMicro, `${chainAfter - chainBefore} micro-USDC`);
  check('no settlement line of zero or less', ((settlement.lines ?? []) as any[]).every((l) => usdToAtto(l.amount_usdc) > 0n));
  // The overview checks above compare with the tally of the first play; here only the ledger.
  const ledger = await context.admin.expect([200], 'GET', '/v1/admin/ledger/check');
  console.log(`Ledger check after the refund and the netting settlement: ok=${ledger.body.ok}, ${ledger.body.journal_entries} journal entries`);
  check('ledger check ok after refunds', ledger.body.ok === true, JSON.stringify(ledger.body).slice(0, 300));
  // The refunded contributor's statement of the month: the clawback and both payouts, tied out.
  await printStatement(context, await contributorBalances(context), contributorId);
}

/** One contributor's statement of this month (JSON, CSV, PDF): it must tie out to the balances. */
async function printStatement(context: DemoContext, balances: Map<string, any>, id: string = CONTRIBUTORS[0]!.id): Promise<void> {
  const month = new Date().toISOString().slice(0, 7);
  const path = `/v1/contributors/${id}/statements/${month}`;
  const s = (await context.admin.expect([200], 'GET', path)).body;
  const b = balances.get(id);
  console.log(`\nStatement ${id} ${month} (USD): opening ${s.opening_usd} + earned ${s.earned_usd} (${s.events} events) - clawed back ${s.clawed_back_usd} + adjustments ${s.adjustments_usd} - paid ${s.paid_usd} = closing ${s.closing_usd}`);
  for (const p of s.payouts) console.log(`  payout ${p.amount_usdc} USDC  tx ${p.tx_hash}  ${p.confirmed_at}`);
  const [opening, earned, clawed, adjustments, paid, closing] = [s.opening_usd, s.earned_usd, s.clawed_back_usd, s.adjustments_usd, s.paid_usd, s.closing_usd].map(usdToAtto);
  check(`${id} statement: closing == opening + earned - clawed back + adjustments - paid`, closing === opening! + earned! - clawed! + adjustments! - paid!, s.closing_usd);
  check(`${id} statement: closing == pending + payable + in settlement now`, closing === usdToAtto(b.pending_usd ?? '0') + usdToAtto(b.payable_usd) + usdToAtto(b.in_settlement_usd), `${s.closing_usd} vs ${b.payable_usd}`);
  const csv = await context.admin.expect([200], 'GET', `${path}?format=csv`);
  const rows = String(csv.body).trim().split('\r\n').slice(1).map((line) => line.split(','));
  const amountColumn = String(csv.body).split('\r\n')[0]!.split(',').indexOf('amount_usd');
  const movements = rows.slice(1, -1).reduce((sum, row) => sum + usdToAtto(row[amountColumn]), 0n);
  check(`${id} statement CSV: opening + rows == closing`, usdToAtto(rows[0]![amountColumn]) + movements === closing, `${rows.length} rows`);
  const pdf = await context.admin.expect([200], 'GET', `${path}?format=pdf`);
  check(`${id} statement PDF`, pdf.headers.get('content-type') === 'application/pdf' && String(pdf.body).startsWith('%PDF-'), pdf.headers.get('content-type') ?? '');
}

async function printLedgerCheck(context: DemoContext): Promise<void> {
  const ledger = await context.admin.expect([200], 'GET', '/v1/admin/ledger/check');
  console.log(`\nLedger check: ok=${ledger.body.ok}, ${ledger.body.journal_entries} journal entries, postings sum ${ledger.body.postings_sum}, mismatched accounts ${JSON.stringify(ledger.body.mismatched_accounts)}`);
  check('ledger check ok', ledger.body.ok === true && (ledger.body.mismatched_accounts ?? []).length === 0, JSON.stringify(ledger.body).slice(0, 300));
  const overview = await context.admin.call('GET', '/v1/admin/overview');
  if (overview.status !== 200) {
    say(`note: GET /v1/admin/overview -> ${overview.status} (not available in this build)`);
    return;
  }
  const o = overview.body;
  console.log(`Overview: charged ${o.charged_usd}, revenue ${o.revenue_usd}, users ${o.users_balance_usd}, payable ${o.contributors_payable_usd}, in settlement ${o.in_settlement_usd}, paid ${o.paid_usd}, unpriced ${o.unpriced_events}`);
  const total = context.tally.total();
  check('overview: charged == sum of charges', usdToAtto(o.charged_usd) === total.chargeAtto, o.charged_usd);
  check('overview: revenue == sum of margins', usdToAtto(o.revenue_usd) === total.marginAtto, o.revenue_usd);
}

// ---- --serve: keep the stack for the web console ------------------------------------------------

const SERVE_EXTRA_EVENTS = 60;
const SERVE_UNPRICED_MODEL = 'demo-lab/unlisted-model-1';
const SERVE_UNPRICED_EVENTS = 5;
/** Longer than any session; the CleanupStack's Ctrl-C handler ends the process. */
const KEEP_ALIVE_MS = 2 ** 30;

/** After the settlement everything is paid: new earnings to settle and events without a price to fix. */
async function seedForConsole(context: DemoContext): Promise<void> {
  const random = seededRandom(20261201);
  const events = Array.from({ length: SERVE_EXTRA_EVENTS }, (_, i) => randomEvent(context.runId, 'serve', i, random));
  for (let i = 0; i < SERVE_UNPRICED_EVENTS; i += 1) events.push({ ...randomEvent(context.runId, 'unpriced', i, random), model: SERVE_UNPRICED_MODEL });
  await context.gateway.expect([200], 'POST', '/v1/usage-events/batch', { events });
  say(`serve: ${SERVE_EXTRA_EVENTS} more events (payable, not settled yet) and ${SERVE_UNPRICED_EVENTS} events of ${SERVE_UNPRICED_MODEL}, which has no price`);
}

async function serveUntilStopped(context: DemoContext, stack: { adminKey: string; baseUrl: string }): Promise<void> {
  await seedForConsole(context);
  const contributor = CONTRIBUTORS[0]!.id;
  const portalKey = await context.admin.expect([201], 'POST', '/v1/admin/api-keys', { role: 'contributor', contributor_id: contributor, name: 'demo portal' });
  console.log(`\nThe stack keeps running (--serve). Web console: ${stack.baseUrl}/console/`);
  console.log(`  admin key:               ${stack.adminKey}`);
  console.log(`  contributor key (${contributor}): ${portalKey.body.key}`);
  console.log(`  API: ${stack.baseUrl} (OpenAPI at ${stack.baseUrl}/docs). Press Ctrl-C to stop and clean up.`);
  await new Promise<void>(() => setInterval(() => undefined, KEEP_ALIVE_MS));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { keep: { type: 'boolean', default: false }, 'no-build': { type: 'boolean', default: false }, serve: { type: 'boolean', default: false } },
    strict: true,
  });
  const startedMs = Date.now();
  const runId = randomSuffix();
  const runDir = createRunDir(`ledger-demo-${runId}`);
  const cleanup = new CleanupStack((line) => say(`cleanup: ${line}`));
  try {
    const priceDocument = demoPriceDocument();
    const stack = await startStack(runId, runDir, cleanup, { keep: values.keep ?? false, noBuild: values['no-build'] ?? false });
    const context: DemoContext = {
      runId,
      admin: stack.admin,
      gateway: stack.admin,
      prices: priceDocument.prices,
      priceDocumentText: priceDocument.text,
      addresses: new Map(),
      tally: new Tally(priceDocument.prices, new Map(CONTRIBUTORS.map((c) => [c.id, c.tier]))),
      redisUrl: stack.redisUrl,
      queuePrefix: stack.queuePrefix,
      devchain: stack.devchain,
    };
    await playAndCheck(context);
    if (values.serve) {
      if (printChecks()) {
        say(`checks passed in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
        await serveUntilStopped(context, stack);
      }
      say('a check failed: not serving; stopping');
      return 1;
    }
  } catch (error) {
    check('demo ran to the end', false, (error as Error).message);
    console.error(`\n[demo] stopped: ${(error as Error).stack ?? error}\n[demo] logs: ${runDir}`);
    for (const service of services) {
      if (!service.isRunning()) console.error(`[demo] the ${service.spec.name} process had ended (${service.exitDescription()}); see ${service.spec.logPath}`);
    }
  } finally {
    await cleanup.runAll();
  }
  const ok = printChecks();
  say(`${ok ? 'OK' : 'FAILED'} in ${((Date.now() - startedMs) / 1000).toFixed(1)} s (logs: ${runDir})`);
  return ok ? 0 : 1;
}

process.exitCode = await main();
