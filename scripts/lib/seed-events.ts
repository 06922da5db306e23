// Bulk seeding of a benchmark database with priced usage, consistent with the ledger.
//
// What one run writes, all in ONE transaction (a crash leaves nothing half-seeded):
// - prices for the seed models (effective 2000-01-01; kept if already there), contributors
//   `seed-c<NNNNNN>` (every 4th premium) with their tier history, users `seed-u<NNNNN>`;
// - N usage_events rows (and their usage_event_keys; each month's partition), status priced, half
//   of them with a key_id (3 keys per user), generated server-side by INSERT ... SELECT FROM
//   generate_series in chunks (no rows cross the wire), amounts exact: official from the price,
//   charge = official x 1.3, payout = official x 1.1 or 1.2 by tier, margin = charge - payout;
// - contributor_usage_daily rows (upserted: adds to what is there), summed from the inserted rows;
// - journal entries, AGGREGATED to stay fast: kind `seed`, one per contributor and UTC day
//   (user -charge, contributor payable +payout, platform:revenue +margin; each contributor's
//   events bill one user, so three postings suffice) plus one funding entry per user
//   (external:funding -> user, the user's charges + 1000 USD). Every entry sums to zero;
// - stored balances of the touched user/contributor accounts, increased by exactly the sum of
//   this run's postings, so GET /v1/admin/ledger/check (including `rollups`) stays ok.
// Per-event journal entries (what ingestion writes) are NOT created: the journal reconciles per
// contributor-day, not per event.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { parseUsdToAtto } from '../../src/common/money/index.js';

export const SEED_EVENTS_MAX = 200_000_000;
export const SEED_CONTRIBUTORS_MAX = 1_000_000;
export const SEED_DAYS_MAX = 3660;
export const SEED_CHUNK_EVENTS_MAX = 2_000_000;
/** Events per generate_series chunk of a large seed (the CLI's --chunk default, the benches' seeds). */
export const SEED_CHUNK_EVENTS_DEFAULT = 250_000;
const SEED_USERS_MAX = 100_000;
const PRICE_EFFECTIVE_FROM = '2000-01-01T00:00:00Z';
const USER_FUNDING_EXTRA_ATTO = 1000n * 10n ** 18n;
const ATTO_PER_MICRO_USD = 10n ** 12n;

/** USD per million tokens: input, output, cached input (null: cached bills at input). */
const BASE_MODELS: Array<[string, string, string, string | null]> = [
  ['seed/gpt-large', '2.5', '10', '1.25'],
  ['seed/gpt-small', '0.15', '0.6', '0.075'],
  ['seed/claude-large', '3', '15', '0.3'],
  ['seed/claude-small', '0.8', '4', '0.08'],
  ['seed/llama-70b', '0.59', '0.79', null],
  ['seed/mistral-large', '2', '6', null],
  ['seed/gemini-pro', '1.25', '10', '0.3125'],
  ['seed/deepseek', '0.27', '1.1', '0.07'],
];

export interface SeedOptions {
  databaseUrl: string;
  events: number;
  contributors: number;
  users: number;
  models: number;
  days: number;
  /** Exclusive last day (UTC midnight); events fall in [endDay - days, endDay). */
  endDay: Date;
  chunkEvents: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  runId: string;
  events: number;
  rollupRows: number;
  journalEntries: number;
  seconds: number;
}

function seedModels(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const [name, input, output, cached] = BASE_MODELS[i % BASE_MODELS.length]!;
    const perMtok = (usd: string) => parseUsdToAtto(usd, { decimalsMax: 6 }).toString();
    return { model: i < BASE_MODELS.length ? name : `${name}-${i}`, input: perMtok(input), output: perMtok(output), cached: cached === null ? null : perMtok(cached) };
  });
}

export function checkSeedOptions(o: SeedOptions): void {
  const within = (name: string, value: number, min: number, max: number) => {
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got ${value}`);
  };
  within('events', o.events, 1, SEED_EVENTS_MAX);
  within('contributors', o.contributors, 1, SEED_CONTRIBUTORS_MAX);
  within('users', o.users, 1, Math.min(SEED_USERS_MAX, o.contributors));
  within('models', o.models, 1, 64);
  within('days', o.days, 1, SEED_DAYS_MAX);
  within('chunk', o.chunkEvents, 1000, SEED_CHUNK_EVENTS_MAX);
  if (o.endDay.getTime() % 86_400_000 !== 0) throw new Error('--end-day must be a UTC date');
}

async function seedCatalog(client: pg.ClientBase, o: SeedOptions) {
  const models = seedModels(o.models);
  await client.query(
    `INSERT INTO prices (model, input_atto_per_mtok, output_atto_per_mtok, cached_input_atto_per_mtok, effective_from, source)
     SELECT model, input, output, cached, $2::timestamptz, 'seed'
     FROM json_to_recordset($1::json) AS x(model text, input numeric, output numeric, cached numeric)
     ON CONFLICT (model, variant, effective_from) DO NOTHING`,
    [JSON.stringify(models), PRICE_EFFECTIVE_FROM],
  );
  // The version in force for seeded events is the newest effective at or before the first day.
  const prices = await client.query<{ model: string; id: string; input: string; output: string; cached: string | null }>(
    `SELECT DISTINCT ON (model) model, id, input_atto_per_mtok AS input, output_atto_per_mtok AS output, cached_input_atto_per_mtok AS cached
     FROM prices WHERE model = ANY($1::text[]) AND variant = 'standard' AND effective_from <= $2::timestamptz ORDER BY model, effective_from DESC`,
    [models.map((m) => m.model), new Date(o.endDay.getTime() - o.days * 86_400_000)],
  );
  const byModel = new Map(prices.rows.map((p) => [p.model, p]));
  const ordered = models.map((m) => byModel.get(m.model)!);
  await client.query(
    `WITH created AS (
       INSERT INTO contributors (id, tier, payout_address, status)
       SELECT 'seed-c' || lpad(i::text, 6, '0'), CASE WHEN i % 4 = 0 THEN 'premium' ELSE 'standard' END,
              '0x' || lpad(to_hex(i + 1), 40, '0'), 'active'
       FROM generate_series(0, $1::int - 1) AS i
       ON CONFLICT (id) DO NOTHING
       RETURNING id, tier)
     INSERT INTO contributor_tiers (contributor_id, tier, effective_from) SELECT id, tier, $2::timestamptz FROM created`,
    [o.contributors, PRICE_EFFECTIVE_FROM],
  );
  return ordered;
}

// One chunk of events, generated from two hashes of the sequence number. Money is computed in
// bigint: prices are passed in micro-USD per Mtok (exact: they have at most 6 decimals), so
// official_atto = sum(tokens x price) x 10^6 stays far below 2^63 and needs no numeric maths.
// Event ids are zero-padded so the unique index is appended to at its right edge.
const INSERT_CHUNK_SQL = `
WITH g AS (
  -- hashint8 folds the high half into the low one, so h2 hashes a different number, not n XOR c.
  SELECT n, hashint8(n) & 2147483647 AS h1, hashint8(n * 2654435761 + 1013904223) & 2147483647 AS h2
  FROM generate_series($1::bigint, $2::bigint) AS n
), e AS (
  SELECT n, (h1 % $3::int) AS c, ((h1 / $3::int) % $4::int) + 1 AS m, h2 % $5::int AS d, (h2 / $5::int) % 86400 AS s,
         100 + (h1 / 7) % 4000 AS pt, 20 + (h2 / 13) % 1000 AS ct
  FROM g
), t AS (
  SELECT e.n, e.c, e.d, e.s, e.pt, e.ct, x.cached, x.reasoning, x.premium, p.model, p.price_id,
         ((e.pt - x.cached)::bigint * p.input_micro + x.cached::bigint * p.cached_micro + e.ct::bigint * p.output_micro) * 1000000 AS official
  FROM e
  JOIN unnest($6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) WITH ORDINALITY
       AS p(model, price_id, input_micro, output_micro, cached_micro, m) ON p.m = e.m
  CROSS JOIN LATERAL (SELECT CASE WHEN e.n % 3 = 0 THEN e.pt / 4 ELSE 0 END AS cached,
                             CASE WHEN e.n % 5 = 0 THEN e.ct / 2 ELSE 0 END AS reasoning,
                             e.c % 4 = 0 AS premium) AS x
), ins AS (
INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, key_id, model, occurred_at, received_at,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, source, status, price_id, contributor_tier,
  user_markup, payout_multiplier, official_atto, charge_atto, payout_atto, margin_atto, priced_at)
SELECT $11::text || lpad(n::text, 10, '0'), 'seed', 'seed-u' || lpad((c % $12::int)::text, 5, '0'), 'seed-c' || lpad(c::text, 6, '0'),
  -- Half the events name a gateway key (3 per user), as gateways that pass key_id do.
  CASE WHEN n % 2 = 0 THEN 'seed-u' || lpad((c % $12::int)::text, 5, '0') || '-k' || (n % 3)::text END, model,
  $13::timestamptz + make_interval(days => d, secs => s), $13::timestamptz + make_interval(days => d, secs => s),
  pt, ct, cached, reasoning, 'seed', 'priced', price_id, CASE WHEN premium THEN 'premium' ELSE 'standard' END,
  '1.3', CASE WHEN premium THEN '1.2' ELSE '1.1' END,
  official, official * 13 / 10, official * CASE WHEN premium THEN 12 ELSE 11 END / 10,
  official * 13 / 10 - official * CASE WHEN premium THEN 12 ELSE 11 END / 10,
  $13::timestamptz + make_interval(days => d, secs => s)
FROM t
RETURNING id, event_id, request_hash, occurred_at
)
-- Permanent idempotency (usage_event_keys, docs/history.md): every event has its key.
INSERT INTO usage_event_keys (event_id, request_hash, id, occurred_at) SELECT event_id, request_hash, id, occurred_at FROM ins`;

// This run's events summed per contributor, user, UTC day and model: one pass over the new rows.
const AGGREGATE_SQL = `
INSERT INTO seed_agg
SELECT contributor_id, user_id, (occurred_at AT TIME ZONE 'UTC')::date, model, count(*), sum(prompt_tokens), sum(completion_tokens),
       sum(official_atto), sum(payout_atto), sum(charge_atto), sum(margin_atto), sum(cached_tokens)
FROM usage_events WHERE id > $1::bigint AND source = 'seed' AND event_id LIKE $2 || '%'
GROUP BY 1, 2, 3, 4`;

/** atto-USD per Mtok -> micro-USD per Mtok; seed prices have at most 6 decimals, so exact. */
function toMicro(attoPerMtok: string): string {
  const atto = BigInt(attoPerMtok);
  if (atto % ATTO_PER_MICRO_USD !== 0n) throw new Error(`price ${attoPerMtok} atto/Mtok has more than 6 decimals of USD`);
  return (atto / ATTO_PER_MICRO_USD).toString();
}

async function insertEvents(client: pg.ClientBase, o: SeedOptions, runId: string, prices: Array<{ model: string; id: string; input: string; output: string; cached: string | null }>) {
  const log = o.log ?? (() => undefined);
  const startDay = new Date(o.endDay.getTime() - o.days * 86_400_000);
  const startedMs = Date.now();
  for (let lo = 0; lo < o.events; lo += o.chunkEvents) {
    const hi = Math.min(o.events, lo + o.chunkEvents) - 1;
    await client.query(INSERT_CHUNK_SQL, [
      lo, hi, o.contributors, prices.length, o.days,
      prices.map((p) => p.model), prices.map((p) => p.id), prices.map((p) => toMicro(p.input)), prices.map((p) => toMicro(p.output)),
      prices.map((p) => toMicro(p.cached ?? p.input)), `seed-${runId}-`, o.users, startDay,
    ]);
    const done = hi + 1;
    const rate = Math.round(done / Math.max(0.001, (Date.now() - startedMs) / 1000));
    log(`events ${done}/${o.events} (${((100 * done) / o.events).toFixed(1)}%) ${rate} events/s`);
  }
}

const ROLLUP_SQL = `
INSERT INTO contributor_usage_daily AS r (contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto, cached_tokens)
SELECT contributor_id, day, model, sum(events), sum(prompt_tokens), sum(completion_tokens), sum(official_atto), sum(earned_atto), sum(charge_atto), sum(margin_atto), sum(cached_tokens)
FROM seed_agg GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
ON CONFLICT (contributor_id, day, model) DO UPDATE SET
  events = r.events + excluded.events, prompt_tokens = r.prompt_tokens + excluded.prompt_tokens,
  completion_tokens = r.completion_tokens + excluded.completion_tokens, official_atto = r.official_atto + excluded.official_atto,
  earned_atto = r.earned_atto + excluded.earned_atto, charge_atto = r.charge_atto + excluded.charge_atto, margin_atto = r.margin_atto + excluded.margin_atto,
  cached_tokens = r.cached_tokens + excluded.cached_tokens`;

async function postLedger(client: pg.ClientBase, runId: string): Promise<number> {
  const usage = await client.query(
    `INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto, memo)
     SELECT 'seed', $1 || ':usage:' || contributor_id || ':' || day,
            ARRAY['user:' || user_id, 'contributor:' || contributor_id || ':payable', 'platform:revenue'],
            ARRAY[-sum(charge_atto), sum(earned_atto), sum(margin_atto)]::numeric[],
            'seeded usage: ' || sum(events) || ' events'
     FROM seed_agg GROUP BY contributor_id, user_id, day`,
    [runId],
  );
  const funding = await client.query(
    `INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto, memo)
     SELECT 'seed', $1 || ':funding:' || user_id, ARRAY['external:funding', 'user:' || user_id],
            ARRAY[-(sum(charge_atto) + $2::numeric), sum(charge_atto) + $2::numeric]::numeric[], 'seeded top-up'
     FROM seed_agg GROUP BY user_id`,
    [runId, USER_FUNDING_EXTRA_ATTO.toString()],
  );
  // Stored balances move by exactly this run's postings on tracked (user/contributor) accounts.
  await client.query(
    `INSERT INTO accounts (code, kind, owner_id, tracked, balance_atto)
     SELECT code, CASE WHEN code LIKE 'user:%' THEN 'user' ELSE 'contributor_payable' END, split_part(code, ':', 2), true, total
     FROM (SELECT p.code, sum(p.amount) AS total
           FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
           WHERE e.kind = 'seed' AND e.ref LIKE $1 || ':%' AND (p.code LIKE 'user:%' OR p.code LIKE 'contributor:%')
           GROUP BY p.code) AS t
     ORDER BY code
     ON CONFLICT (code) DO UPDATE SET balance_atto = accounts.balance_atto + excluded.balance_atto`,
    [runId],
  );
  return (usage.rowCount ?? 0) + (funding.rowCount ?? 0);
}

export async function seedEvents(o: SeedOptions): Promise<SeedResult> {
  checkSeedOptions(o);
  const log = o.log ?? (() => undefined);
  const runId = randomBytes(4).toString('hex');
  const startedMs = Date.now();
  const client = new pg.Client({ connectionString: o.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    // A seed is one long transaction: no statement timeout; commit durability is not needed per statement.
    await client.query(`SET LOCAL statement_timeout = 0`);
    await client.query(`SET LOCAL synchronous_commit = off`);
    await client.query(`CREATE TEMP TABLE seed_agg (contributor_id text, user_id text, day date, model text, events bigint,
      prompt_tokens bigint, completion_tokens bigint, official_atto numeric, earned_atto numeric, charge_atto numeric, margin_atto numeric, cached_tokens bigint) ON COMMIT DROP`);
    const prices = await seedCatalog(client, o);
    log(`run ${runId}: ${o.events} events, ${o.contributors} contributors, ${o.users} users, ${prices.length} models, ${o.days} days`);
    // usage_events is partitioned by month: each month seeded gets its partition first.
    await client.query(
      `SELECT usage_events_ensure_partition(m AT TIME ZONE 'UTC') FROM generate_series(date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC'), $2::timestamptz AT TIME ZONE 'UTC', interval '1 month') AS m`,
      [new Date(o.endDay.getTime() - o.days * 86_400_000), o.endDay],
    );
    const before = await client.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM usage_events');
    await insertEvents(client, o, runId, prices);
    await client.query(AGGREGATE_SQL, [before.rows[0]!.id, `seed-${runId}-`]);
    const rollups = await client.query(ROLLUP_SQL);
    log(`rollups: ${rollups.rowCount} contributor/day/model rows`);
    const journalEntries = await postLedger(client, runId);
    log(`journal: ${journalEntries} aggregated entries (kind seed), balances updated`);
    await client.query('COMMIT');
    await client.query('ANALYZE usage_events, contributor_usage_daily, journal_entries, accounts');
    const seconds = (Date.now() - startedMs) / 1000;
    log(`committed in ${seconds.toFixed(1)} s`);
    return { runId, events: o.events, rollupRows: rollups.rowCount ?? 0, journalEntries, seconds };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
