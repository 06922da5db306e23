// A small gateway-like HTTP client for the reliability runs: sends events over the single and
// batch endpoints with bounded concurrency and records, per attempt, the status, the error code
// and the latency, so each scenario can report what was acknowledged and what failed how.
import { sleep } from '../../../scripts/lib/processes.js';
import { ORACLE_CONTRIBUTORS, ORACLE_PRICE_BODY, ORACLE_USER_CREDIT_USD, ORACLE_USERS, type UsageBody } from './usage-oracle.js';

export const REQUEST_TIMEOUT_MS = 15_000;

export interface Attempt {
  /** HTTP status, or 0 when no response came (refused, reset, timeout). */
  status: number;
  /** api.md error code, or the network error's code. */
  code: string | null;
  latencyMs: number;
  startedAtMs: number;
}

export class AttemptLog {
  readonly attempts: Attempt[] = [];

  add(attempt: Attempt): void {
    this.attempts.push(attempt);
  }

  summary(filter: (a: Attempt) => boolean = () => true) {
    const chosen = this.attempts.filter(filter);
    const byStatus: Record<string, number> = {};
    for (const a of chosen) {
      const key = a.status === 0 ? `network:${a.code}` : a.status >= 400 ? `${a.status}:${a.code}` : String(a.status);
      byStatus[key] = (byStatus[key] ?? 0) + 1;
    }
    const latencies = chosen.map((a) => a.latencyMs).sort((x, y) => x - y);
    const at = (q: number) => (latencies.length === 0 ? 0 : latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
    return {
      requests: chosen.length,
      byStatus,
      fiveXx: chosen.filter((a) => a.status >= 500).length,
      status500: chosen.filter((a) => a.status === 500).length,
      latencyMs: { p50: Math.round(at(0.5)), p99: Math.round(at(0.99)), max: Math.round(latencies.at(-1) ?? 0) },
    };
  }
}

export interface Client {
  baseUrl: () => string;
  key: string;
  log: AttemptLog;
}

async function call(client: Client, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; attempt: Attempt }> {
  const startedAtMs = Date.now();
  const started = performance.now();
  try {
    const response = await fetch(`${client.baseUrl()}${path}`, {
      method,
      headers: { authorization: `Bearer ${client.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { raw: text.slice(0, 200) };
    }
    const attempt = { status: response.status, code: json?.error?.code ?? null, latencyMs: performance.now() - started, startedAtMs };
    client.log.add(attempt);
    return { status: response.status, json, attempt };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const code = (error as Error).name === 'TimeoutError' ? 'timeout' : cause?.code ?? (error as Error).name;
    const attempt = { status: 0, code, latencyMs: performance.now() - started, startedAtMs };
    client.log.add(attempt);
    return { status: 0, json: null, attempt };
  }
}

/** POST /v1/usage-events: acknowledged when 2xx. */
export async function sendSingle(client: Client, event: UsageBody): Promise<{ acked: boolean; status: number; replayed: boolean }> {
  const result = await call(client, 'POST', '/v1/usage-events', event);
  return { acked: result.status >= 200 && result.status < 300, status: result.status, replayed: result.status === 200 };
}

/** POST /v1/usage-events/batch: the ids acknowledged (priced, unpriced or duplicate) in a 200. */
export async function sendBatch(client: Client, events: UsageBody[]): Promise<{ acked: string[]; duplicates: number; status: number }> {
  const result = await call(client, 'POST', '/v1/usage-events/batch', { events });
  if (result.status !== 200) return { acked: [], duplicates: 0, status: result.status };
  const items = result.json.results as Array<{ event_id: string; status: string }>;
  const acked = items.filter((r) => r.status === 'priced' || r.status === 'unpriced' || r.status === 'duplicate').map((r) => r.event_id);
  return { acked, duplicates: items.filter((r) => r.status === 'duplicate').length, status: 200 };
}

export async function getJson(client: Client, path: string): Promise<{ status: number; json: any; attempt: Attempt }> {
  return call(client, 'GET', path);
}

export async function postJson(client: Client, path: string, body: unknown): Promise<{ status: number; json: any }> {
  return call(client, 'POST', path, body);
}

export async function put(client: Client, path: string, body: unknown): Promise<{ status: number; json: any }> {
  return call(client, 'PUT', path, body);
}

/** The oracle's price, contributors and funded users, through the public admin API. */
export async function seedOracleBilling(admin: Client): Promise<void> {
  const expectOk = (what: string, r: { status: number; json: any }) => {
    if (r.status < 200 || r.status >= 300) throw new Error(`seed ${what}: HTTP ${r.status} ${JSON.stringify(r.json)}`);
  };
  expectOk('price', await postJson(admin, '/v1/admin/prices', ORACLE_PRICE_BODY));
  for (const c of ORACLE_CONTRIBUTORS) expectOk(`contributor ${c.id}`, await put(admin, `/v1/admin/contributors/${c.id}`, { tier: c.tier, payout_address: c.payout_address }));
  for (const user of ORACLE_USERS) {
    expectOk(`credit ${user}`, await postJson(admin, `/v1/admin/users/${user}/credits`, { amount_usd: ORACLE_USER_CREDIT_USD, reference: `seed-${user}` }));
  }
}

/** Creates a gateway key (hashed in the database: every request looks it up, cached 2 s). */
export async function createGatewayKey(admin: Client): Promise<string> {
  const r = await postJson(admin, '/v1/admin/api-keys', { role: 'gateway', name: 'reliability' });
  if (r.status !== 201) throw new Error(`gateway key: HTTP ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.key as string;
}

/** Runs tasks with at most `concurrency` in flight. */
export async function runPool<T>(items: T[], concurrency: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      const index = next;
      next += 1;
      if (index >= items.length) return;
      await task(items[index]!, index);
    }
  });
  await Promise.all(lanes);
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export type LatencySummary = ReturnType<AttemptLog['summary']>['latencyMs'];

/**
 * Asks /health/ready every 250 ms until `durationMs` after `sinceMs` (an outage's start): the
 * answers by HTTP status, and how many of them said the `downCheck` dependency was down.
 */
export async function pollReadiness(client: Client, input: { sinceMs: number; durationMs: number; downCheck?: 'postgres' | 'redis' }): Promise<{ byStatus: Record<string, number>; saidDown: number }> {
  const byStatus: Record<string, number> = {};
  let saidDown = 0;
  while (Date.now() - input.sinceMs < input.durationMs) {
    const r = await getJson(client, '/health/ready');
    byStatus[String(r.status)] = (byStatus[String(r.status)] ?? 0) + 1;
    if (input.downCheck && r.json?.checks?.[input.downCheck]?.status === 'down') saidDown += 1;
    await sleep(250);
  }
  return { byStatus, saidDown };
}
