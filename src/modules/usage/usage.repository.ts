import { Injectable } from '@nestjs/common';
import { assert } from '../../common/errors/index.js';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { arrayLiteral, plainArrayLiteral, preparedStatement, toBigInt, toBigIntOrNull } from '../../database/sql.js';
import { trySessionLock, type SessionLock } from '../../database/session-lock.js';
import { BALANCE_DELTAS_CTE, POSTED_BALANCES_CTE, POSTING_CTE_PARAM_COUNT, postingCtes, type BatchedPosting } from '../ledger/batched-posting.js';
import { lowBalanceOutboxCte, unpricedOutboxCte } from '../webhooks/webhook-outbox-ctes.js';
import { DEFAULT_PRICE_VARIANT, type TokenUsage } from '../pricing/pricing.types.js';
import type { ArchivedEvent, ContributorTierName, PlannedEvent, RollupDelta, StoredEvent } from './usage.types.js';
import { USAGE_JOURNAL_KIND } from './usage-planner.js';
import { USAGE_KINDS_AFTER_FIRST_FOUR } from './usage.schemas.js';
import { describeAccount, PLATFORM_REVENUE } from '../ledger/account-codes.js';
import { spendRollupCte } from '../spend/spend-rollup.repository.js';

/** Rows insertEvents wrote (event_id -> id) and their received_at: one value per transaction. */
export interface InsertedEvents {
  ids: Map<string, bigint>;
  receivedAt: Date | null;
}


export interface UnpricedModelRow {
  model: string;
  events: number;
  firstOccurredAt: Date;
  lastOccurredAt: Date;
}

/** The usage kinds beyond the first four, in the order of the per-row kinds array (kinds_text). */
const KIND_COLUMN_LIST = USAGE_KINDS_AFTER_FIRST_FOUR;
const KIND_COLUMNS = KIND_COLUMN_LIST.join(', ');
/** Each kind from the row's array; a NULL array (a plain text event) is all zeros. */
const KIND_VALUES = KIND_COLUMN_LIST.map((_, i) => `coalesce(x.kinds[${i + 1}], 0)`).join(', ');

const EVENT_COLUMNS = `id, event_id, request_hash, user_id, contributor_id, model, occurred_at, received_at,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, ${KIND_COLUMNS}, price_variant, hold_id, key_id, metadata, source, status,
  price_id, contributor_tier, user_markup, payout_multiplier, official_atto, charge_atto, payout_atto,
  margin_atto, priced_at, stream`;

/** The same columns of usage_events aliased `e`. */
const EVENT_COLUMNS_OF_E = EVENT_COLUMNS.split(',').map((c) => `e.${c.trim()}`).join(', ');

/** A usage_events row as pg returns it (the usage explorer picks its columns from it). */
export interface EventRow {
  id: string;
  event_id: string;
  request_hash: string;
  user_id: string;
  contributor_id: string;
  model: string;
  occurred_at: Date;
  received_at: Date;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  prompt_audio_tokens: number;
  cached_audio_tokens: number;
  prompt_image_tokens: number;
  completion_audio_tokens: number;
  completion_image_tokens: number;
  web_search_calls: number;
  price_variant: string;
  hold_id: string | null;
  key_id: string | null;
  metadata: Record<string, unknown> | null;
  source: string;
  status: 'priced' | 'unpriced';
  price_id: string | null;
  contributor_tier: string | null;
  user_markup: string | null;
  payout_multiplier: string | null;
  official_atto: string | null;
  charge_atto: string | null;
  payout_atto: string | null;
  margin_atto: string | null;
  priced_at: Date | null;
  stream: StoredEvent['stream'];
}

interface InsertedRow {
  id: string;
  event_id: string;
  received_ms: string;
}

const INSERTED_COLUMNS = 'id, event_id, floor(extract(epoch FROM received_at) * 1000)::bigint AS received_ms';

/**
 * The batch's columns, one array parameter each, in parameter order: the ONE place that numbers
 * them (EVENT_SOURCE_SQL's unnest list and its column names, and eventParams' values, are all made
 * from it). The variant (NULL = standard) and the other usage kinds (one int-array literal per row,
 * NULL = all zero) cost a plain text event two NULL array elements.
 */
const EVENT_PARAM_COLUMNS = [
  ['event_id', 'text'],
  ['request_hash', 'text'],
  ['user_id', 'text'],
  ['contributor_id', 'text'],
  ['model', 'text'],
  ['occurred_at', 'timestamptz'],
  ['prompt_tokens', 'int'],
  ['completion_tokens', 'int'],
  ['cached_tokens', 'int'],
  ['reasoning_tokens', 'int'],
  ['hold_id', 'text'],
  ['metadata', 'jsonb'],
  ['source', 'text'],
  ['status', 'text'],
  ['price_id', 'bigint'],
  ['contributor_tier', 'text'],
  ['user_markup', 'text'],
  ['payout_multiplier', 'text'],
  ['official_atto', 'numeric'],
  ['charge_atto', 'numeric'],
  ['payout_atto', 'numeric'],
  ['margin_atto', 'numeric'],
  ['stream', 'jsonb'],
  ['price_variant', 'text'],
  ['kinds_text', 'text'],
  ['key_id', 'text'],
] as const;
type EventParamColumn = (typeof EVENT_PARAM_COLUMNS)[number][0];
export const EVENT_PARAM_COUNT = EVENT_PARAM_COLUMNS.length;

const EVENT_SOURCE_SQL = `SELECT y.*, x.kinds FROM unnest(${EVENT_PARAM_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
         AS y(${EVENT_PARAM_COLUMNS.map(([name]) => name).join(', ')})
         CROSS JOIN LATERAL (SELECT y.kinds_text::int[] AS kinds) AS x`;

/**
 * The multi-row event insert as CTEs `src`, `event_keys` and `ins` (ins RETURNING the given
 * columns). usage_events is partitioned by month, so event_id is unique in usage_event_keys
 * (permanent idempotency, docs/history.md): the keys are inserted in event_id order (concurrent
 * batches take the unique-index locks in the same order), existing ones skipped, and only the
 * events whose key this statement inserted are written, with the id the key took.
 */
function insertEventsCtes(returning: string): string {
  return `src AS (
     ${EVENT_SOURCE_SQL}
   ), event_keys AS (
     INSERT INTO usage_event_keys (event_id, request_hash, id, occurred_at)
     SELECT event_id, request_hash, nextval('usage_events_id_seq'), occurred_at FROM src ORDER BY event_id
     ON CONFLICT (event_id) DO NOTHING
     RETURNING event_id, id
   ), ins AS (
     INSERT INTO usage_events (id, event_id, request_hash, user_id, contributor_id, model, occurred_at,
         prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, hold_id, metadata, source, status,
         price_id, contributor_tier, user_markup, payout_multiplier, official_atto, charge_atto, payout_atto,
         margin_atto, priced_at, stream, price_variant, ${KIND_COLUMNS}, key_id)
       SELECT k.id, s.event_id, request_hash, user_id, contributor_id, model, occurred_at,
         prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, hold_id, metadata, source, status,
         price_id, contributor_tier, user_markup, payout_multiplier, official_atto, charge_atto, payout_atto,
         margin_atto, CASE WHEN status = 'priced' THEN now() END, stream, coalesce(price_variant, 'standard'), ${KIND_VALUES.replaceAll('x.kinds', 's.kinds')}, key_id
       FROM src s JOIN event_keys k ON k.event_id = s.event_id
     RETURNING ${returning}
   )`;
}
/**
 * The one-statement write's parameters: the events' columns, then the posting's
 * (batched-posting.ts), then the two webhook parameters; numbered here and nowhere else.
 */
export const ONE_STATEMENT_PARAMS = {
  postingFirst: EVENT_PARAM_COUNT + 1,
  lowBalanceThreshold: EVENT_PARAM_COUNT + POSTING_CTE_PARAM_COUNT + 1,
  unpricedModels: EVENT_PARAM_COUNT + POSTING_CTE_PARAM_COUNT + 2,
  /** The spend clock's now: a billed user with a grant expiring after it sends the group to the transaction path. */
  grantsAt: EVENT_PARAM_COUNT + POSTING_CTE_PARAM_COUNT + 3,
  count: EVENT_PARAM_COUNT + POSTING_CTE_PARAM_COUNT + 3,
} as const;

/** SQLSTATE the one-statement write raises (migration 20261207120000) when a billed user has an unexpired grant. */
export const GRANTS_TAKE_TRANSACTION_PATH = 'LG001';

const ROLLUP_INSERT_SQL = `INSERT INTO contributor_usage_daily AS r (contributor_id, day, model, events, prompt_tokens,
         completion_tokens, official_atto, earned_atto, charge_atto, margin_atto, cached_tokens, cache_write_tokens, audio_tokens)`;
/** A rollup key written again adds to what it holds. */
const ROLLUP_ACCUMULATE_SQL = `ON CONFLICT (contributor_id, day, model) DO UPDATE SET
         events = r.events + excluded.events,
         prompt_tokens = r.prompt_tokens + excluded.prompt_tokens,
         completion_tokens = r.completion_tokens + excluded.completion_tokens,
         cached_tokens = r.cached_tokens + excluded.cached_tokens,
         cache_write_tokens = r.cache_write_tokens + excluded.cache_write_tokens,
         audio_tokens = r.audio_tokens + excluded.audio_tokens,
         official_atto = r.official_atto + excluded.official_atto,
         earned_atto = r.earned_atto + excluded.earned_atto,
         charge_atto = r.charge_atto + excluded.charge_atto,
         margin_atto = r.margin_atto + excluded.margin_atto`;

/**
 * A group commit of events without holds as one statement: the events, their journal entries, the
 * balance upserts (the ledger's CTEs, see ledger/batched-posting.ts), the earnings rollups and the
 * budgets' spend rollup of users with budgets (spend/spend-rollup.repository.ts), in
 * data-modifying CTEs over the parameters of ONE_STATEMENT_PARAMS.
 */
const INSERT_EVENTS_AND_POST = preparedStatement('usage_insert_events_and_post', `WITH ${insertEventsCtes(`${INSERTED_COLUMNS}, user_id, contributor_id, model, occurred_at, status, prompt_tokens,
       completion_tokens, official_atto, payout_atto, charge_atto, margin_atto, cached_tokens,
       cache_write_5m_tokens + cache_write_1h_tokens AS cache_write_tokens, prompt_audio_tokens + completion_audio_tokens AS audio_tokens, key_id`)}, ${postingCtes({ firstParam: ONE_STATEMENT_PARAMS.postingFirst, source: 'ins', refColumn: 'event_id', userColumn: 'user_id' })},
   ${lowBalanceOutboxCte({ name: 'low_balances', balances: POSTED_BALANCES_CTE, deltas: BALANCE_DELTAS_CTE, thresholdParam: ONE_STATEMENT_PARAMS.lowBalanceThreshold })},
   ${unpricedOutboxCte({ name: 'unpriced_alerts', source: 'ins', modelsParam: ONE_STATEMENT_PARAMS.unpricedModels })}, rollups_upserted AS (
     ${ROLLUP_INSERT_SQL}
     SELECT contributor_id, (occurred_at AT TIME ZONE 'UTC')::date, model, count(*), sum(prompt_tokens),
       sum(completion_tokens), sum(official_atto), sum(payout_atto), sum(charge_atto), sum(margin_atto),
       sum(cached_tokens), sum(cache_write_tokens), sum(audio_tokens)
     FROM ins
     -- Reading the balances' CTE makes them go first: every writer locks accounts before
     -- rollups. (Unreferenced CTEs run in no order one can rely on; the statement-by-
     -- statement path holding accounts and waiting for rollups deadlocked with this one.)
     WHERE status = 'priced' AND (SELECT count(*) FROM ${POSTED_BALANCES_CTE}) >= 0
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
     ${ROLLUP_ACCUMULATE_SQL}
     RETURNING 1
   ), ${spendRollupCte({ name: 'spend_upserted', source: 'ins', balances: POSTED_BALANCES_CTE })}, grant_guard AS (
     -- Credit grants are drawn on the transaction path: a billed user with one unexpired rolls the
     -- whole statement back (CASE: the function is called for such a row only). Users without
     -- grants pay a comparison per account row the upsert returns anyway.
     SELECT 1 FROM ${POSTED_BALANCES_CTE} a
     WHERE CASE WHEN a.grants_until > $${ONE_STATEMENT_PARAMS.grantsAt}::timestamptz THEN usage_grants_take_transaction_path(a.code) ELSE false END
   )
   SELECT id, event_id, received_ms FROM ins WHERE NOT EXISTS (SELECT 1 FROM grant_guard)`);

const UPSERT_ROLLUPS = preparedStatement('usage_upsert_rollups', `${ROLLUP_INSERT_SQL}
   SELECT contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto,
     cached_tokens, cache_write_tokens, audio_tokens
   FROM json_to_recordset($1::json) AS x(contributor_id text, day date, model text, events bigint, prompt_tokens bigint,
     completion_tokens bigint, official_atto numeric, earned_atto numeric, charge_atto numeric, margin_atto numeric,
     cached_tokens bigint, cache_write_tokens bigint, audio_tokens bigint)
   ORDER BY contributor_id, day, model
   ${ROLLUP_ACCUMULATE_SQL}`);

/** Through the key: (id, occurred_at) prunes to the event's partition and probes its primary key. */
const FIND_BY_EVENT_IDS = preparedStatement('usage_find_by_event_ids', `SELECT ${EVENT_COLUMNS_OF_E}
   FROM usage_event_keys k JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at
   WHERE k.event_id = ANY($1::text[])`);

/**
 * Keys of events whose month was archived, with the amounts their journal entry posted (the user's
 * negative posting is the charge, the contributor's payable or, while maturing, pending one the
 * payout, platform:revenue the margin) and the model the archive kept. Only keys in an archived
 * month are returned. Months archived before usage_archived_events existed: the model of the
 * contributor's only model that day in usage_archived_rollups, if there was only one.
 */
const FIND_ARCHIVED = `SELECT k.event_id, k.request_hash, k.occurred_at, to_char(a.month, 'YYYY-MM') AS month, j.account_codes, j.amounts_atto,
     coalesce(m.model, (
       SELECT CASE WHEN count(DISTINCT r.model) = 1 THEN min(r.model) END FROM usage_archived_rollups r
       WHERE r.month = a.month AND r.day = (k.occurred_at AT TIME ZONE 'UTC')::date
         AND (('contributor:' || r.contributor_id || ':payable') = ANY(j.account_codes) OR ('contributor:' || r.contributor_id || ':pending') = ANY(j.account_codes))
     )) AS model
   FROM usage_event_keys k
   JOIN usage_archives a ON a.month = date_trunc('month', k.occurred_at AT TIME ZONE 'UTC')::date
   LEFT JOIN journal_entries j ON j.kind = $2 AND j.ref = k.event_id
   LEFT JOIN usage_archived_events m ON m.event_id = k.event_id
   WHERE k.event_id = ANY($1::text[])`;

const INSERT_EVENTS = preparedStatement('usage_insert_events', `WITH ${insertEventsCtes(INSERTED_COLUMNS)}\n   SELECT * FROM ins`);

/**
 * The composed write statements, as the committed snapshot usage-write.sql shows them in review
 * (usage-write-sql.spec.ts compares; `npm run sql:snapshot` rewrites it).
 */
export const USAGE_WRITE_STATEMENTS = [INSERT_EVENTS_AND_POST, INSERT_EVENTS, UPSERT_ROLLUPS] as const;

/** One array parameter per column of EVENT_PARAM_COLUMNS, in its order. */
function eventParams(planned: PlannedEvent[]): string[] {
  const n = planned.length;
  const eventIds: string[] = new Array(n);
  const hashes: string[] = new Array(n);
  const userIds: string[] = new Array(n);
  const contributorIds: string[] = new Array(n);
  const models: string[] = new Array(n);
  const occurredAt: string[] = new Array(n);
  const prompt: number[] = new Array(n);
  const completion: number[] = new Array(n);
  const cached: number[] = new Array(n);
  const reasoning: number[] = new Array(n);
  const holdIds: Array<string | null> = new Array(n);
  const metadata: Array<string | null> = new Array(n);
  const sources: string[] = new Array(n);
  const statuses: string[] = new Array(n);
  const priceIds: Array<string | null> = new Array(n);
  const tiers: Array<string | null> = new Array(n);
  const markups: Array<string | null> = new Array(n);
  const multipliers: Array<string | null> = new Array(n);
  const official: Array<string | null> = new Array(n);
  const charge: Array<string | null> = new Array(n);
  const payout: Array<string | null> = new Array(n);
  const margin: Array<string | null> = new Array(n);
  const streams: Array<string | null> = new Array(n);
  const variants: Array<string | null> = new Array(n);
  const kinds: Array<string | null> = new Array(n);
  const keyIds: Array<string | null> = new Array(n);
  for (let i = 0; i < n; i += 1) {
    const p = planned[i]!;
    const e = p.event;
    const a = p.amounts;
    eventIds[i] = e.eventId;
    hashes[i] = e.requestHash;
    userIds[i] = e.userId;
    contributorIds[i] = e.contributorId;
    models[i] = e.model;
    occurredAt[i] = e.occurredAt.toISOString();
    prompt[i] = e.usage.promptTokens;
    completion[i] = e.usage.completionTokens;
    cached[i] = e.usage.cachedTokens;
    reasoning[i] = e.usage.reasoningTokens;
    holdIds[i] = e.holdId;
    metadata[i] = e.metadata === null ? null : JSON.stringify(e.metadata);
    sources[i] = e.source;
    statuses[i] = a ? 'priced' : 'unpriced';
    priceIds[i] = p.priceId === null ? null : p.priceId.toString();
    tiers[i] = a ? p.tier : null;
    markups[i] = p.userMarkupText;
    multipliers[i] = p.payoutMultiplierText;
    official[i] = a ? a.officialAtto.toString() : null;
    charge[i] = a ? a.chargeAtto.toString() : null;
    payout[i] = a ? a.payoutAtto.toString() : null;
    margin[i] = a ? a.marginAtto.toString() : null;
    streams[i] = e.stream === null ? null : JSON.stringify(e.stream);
    variants[i] = e.priceVariant === DEFAULT_PRICE_VARIANT ? null : e.priceVariant;
    kinds[i] = kindsLiteral(e.usage);
    keyIds[i] = e.keyId;
  }
  // Free text is quoted; numbers, timestamps, hex hashes and fixed words need no quoting.
  const quoted = arrayLiteral;
  const plain = plainArrayLiteral;
  const byColumn: Record<EventParamColumn, string> = {
    event_id: quoted(eventIds),
    request_hash: plain(hashes),
    user_id: quoted(userIds),
    contributor_id: quoted(contributorIds),
    model: quoted(models),
    occurred_at: plain(occurredAt),
    prompt_tokens: plain(prompt),
    completion_tokens: plain(completion),
    cached_tokens: plain(cached),
    reasoning_tokens: plain(reasoning),
    hold_id: quoted(holdIds),
    metadata: quoted(metadata),
    source: plain(sources),
    status: plain(statuses),
    price_id: plain(priceIds),
    contributor_tier: plain(tiers),
    user_markup: plain(markups),
    payout_multiplier: plain(multipliers),
    official_atto: plain(official),
    charge_atto: plain(charge),
    payout_atto: plain(payout),
    margin_atto: plain(margin),
    stream: quoted(streams),
    price_variant: quoted(variants),
    kinds_text: quoted(kinds),
    key_id: quoted(keyIds),
  };
  return EVENT_PARAM_COLUMNS.map(([name]) => byColumn[name]);
}

/** The kinds of KIND_COLUMN_LIST as an int-array literal, or null when all are 0. */
function kindsLiteral(u: TokenUsage): string | null {
  if (
    u.cacheWrite5mTokens === 0 &&
    u.cacheWrite1hTokens === 0 &&
    u.promptAudioTokens === 0 &&
    u.cachedAudioTokens === 0 &&
    u.promptImageTokens === 0 &&
    u.completionAudioTokens === 0 &&
    u.completionImageTokens === 0 &&
    u.webSearchCalls === 0
  ) {
    return null;
  }
  return `{${u.cacheWrite5mTokens},${u.cacheWrite1hTokens},${u.promptAudioTokens},${u.cachedAudioTokens},${u.promptImageTokens},${u.completionAudioTokens},${u.completionImageTokens},${u.webSearchCalls}}`;
}

function insertedEvents(rows: InsertedRow[]): InsertedEvents {
  const ids = new Map<string, bigint>();
  for (const row of rows) ids.set(row.event_id, BigInt(row.id));
  const first = rows[0];
  // The column default (CURRENT_TIMESTAMP) is the transaction's start time: the same for every
  // row, so only the first is turned into a Date (in milliseconds, as pg's own parser does).
  return { ids, receivedAt: first ? new Date(Number(first.received_ms)) : null };
}

/** The advisory lock key that serializes POST /v1/admin/usage-events/reprice runs. */
const REPRICE_LOCK_KEY = 'usage-reprice';

@Injectable()
export class UsageRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Multi-row insert: one array parameter per column (unnest is cheaper for Postgres to read than
   * json_to_recordset), in event_id order so concurrent batches take unique-index locks in the
   * same order. Existing event_ids are skipped (idempotency). received_at (and priced_at) is the
   * transaction's now() for every row, so it is read once rather than parsed per row.
   */
  async insertEvents(client: SqlClient, planned: PlannedEvent[]): Promise<InsertedEvents> {
    if (planned.length === 0) return { ids: new Map(), receivedAt: null };
    const result = await client.query<InsertedRow>(INSERT_EVENTS(eventParams(planned)));
    return insertedEvents(result.rows);
  }

  /**
   * The whole group commit of new events in ONE statement (no explicit transaction: a statement
   * is atomic): the events, the journal entries of those actually inserted, their accounts'
   * balances and the earnings rollup. One round trip instead of six: under single-event load each
   * round trip waits behind the API's event loop, so this is what bounds the commit rate.
   * Rows the conflict clause skipped (replays) post nothing, as in the statement-by-statement
   * path. Events with a hold take that path (the capture locks and updates the hold).
   */
  /**
   * `webhooks`: the user.balance_low threshold and the models whose first unpriced event this
   * hour is to be announced (webhook-outbox-ctes.ts): announced in the same statement.
   */
  async insertEventsAndPost(
    runner: SqlRunner,
    planned: PlannedEvent[],
    posting: BatchedPosting,
    webhooks: { lowBalanceAtto: bigint; unpricedModelsToAnnounce: readonly string[] },
    grantsAt: Date,
  ): Promise<InsertedEvents> {
    if (planned.length === 0) return { ids: new Map(), receivedAt: null };
    const params = [...eventParams(planned), ...posting.params, webhooks.lowBalanceAtto.toString(), arrayLiteral(webhooks.unpricedModelsToAnnounce), grantsAt.toISOString()];
    assert(params.length === ONE_STATEMENT_PARAMS.count, `one-statement write: ${params.length} parameters, the statement numbers ${ONE_STATEMENT_PARAMS.count}`);
    const result = await runner.query<InsertedRow>(INSERT_EVENTS_AND_POST(params));
    return insertedEvents(result.rows);
  }

  /** Adds priced events to the per contributor/day/model rollup, in key order (no deadlocks). */
  async upsertRollups(client: SqlClient, deltas: RollupDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const rows = deltas.map((d) => ({
      contributor_id: d.contributorId,
      day: d.day,
      model: d.model,
      events: d.events.toString(),
      prompt_tokens: d.promptTokens.toString(),
      completion_tokens: d.completionTokens.toString(),
      cached_tokens: d.cachedTokens.toString(),
      cache_write_tokens: d.cacheWriteTokens.toString(),
      audio_tokens: d.audioTokens.toString(),
      official_atto: d.officialAtto.toString(),
      earned_atto: d.earnedAtto.toString(),
      charge_atto: d.chargeAtto.toString(),
      margin_atto: d.marginAtto.toString(),
    }));
    await client.query(UPSERT_ROLLUPS([JSON.stringify(rows)]));
  }

  async findByEventIds(eventIds: string[], client?: SqlClient): Promise<Map<string, StoredEvent>> {
    if (eventIds.length === 0) return new Map();
    const runner = client ?? this.db.pool;
    const result = await runner.query<EventRow>(FIND_BY_EVENT_IDS([eventIds]));
    return new Map(result.rows.map((row) => [row.event_id, eventFromRow(row)]));
  }

  /** Replays of archived events (rare: only ids no stored event answered are looked up). */
  async findArchived(eventIds: string[]): Promise<Map<string, ArchivedEvent>> {
    const found = new Map<string, ArchivedEvent>();
    if (eventIds.length === 0) return found;
    const result = await this.db.pool.query<{ event_id: string; request_hash: string; occurred_at: Date; month: string; account_codes: string[] | null; amounts_atto: string[] | null; model: string | null }>(
      FIND_ARCHIVED,
      [eventIds, USAGE_JOURNAL_KIND],
    );
    for (const r of result.rows) {
      const event: ArchivedEvent = { eventId: r.event_id, requestHash: r.request_hash, occurredAt: r.occurred_at, archivedMonth: r.month, userId: null, contributorId: null, chargeAtto: 0n, payoutAtto: 0n, marginAtto: 0n, model: r.model };
      (r.account_codes ?? []).forEach((code, i) => {
        const amount = toBigInt(r.amounts_atto![i]);
        const account = describeAccount(code);
        if (account.kind === 'user') {
          event.userId = account.ownerId;
          event.chargeAtto -= amount;
        } else if (account.kind === 'contributor_payable' || account.kind === 'contributor_pending') {
          event.contributorId = account.ownerId;
          event.payoutAtto += amount;
        } else if (code === PLATFORM_REVENUE) {
          event.marginAtto += amount;
        }
      });
      found.set(r.event_id, event);
    }
    return found;
  }

  /** Unpriced events per model (the partial unpriced index bounds the scan), most events first. */
  async unpricedByModel(): Promise<UnpricedModelRow[]> {
    const result = await this.db.pool.query<{ model: string; events: string; first_occurred_at: Date; last_occurred_at: Date }>(
      `SELECT model, count(*) AS events, min(occurred_at) AS first_occurred_at, max(occurred_at) AS last_occurred_at
       FROM usage_events WHERE status = 'unpriced' GROUP BY model ORDER BY count(*) DESC, model COLLATE "C"`,
    );
    return result.rows.map((r) => ({ model: r.model, events: Number(r.events), firstOccurredAt: r.first_occurred_at, lastOccurredAt: r.last_occurred_at }));
  }

  /** Locks a chunk of unpriced events for repricing; concurrent repricers skip each other's rows. */
  /**
   * One reprice at a time across processes: a session-level advisory lock on a connection held for
   * the whole run (Postgres frees it if the process dies). null when another run holds it.
   */
  tryRepriceLock(): Promise<SessionLock | null> {
    return trySessionLock(this.db.pool, REPRICE_LOCK_KEY);
  }

  /**
   * Waits for rows another transaction holds (it does not skip them: a skipped row was answered as
   * still unpriced while it was being priced). Runs under tryRepriceLock, so reprices never wait
   * for each other here.
   */
  async lockUnpriced(client: SqlClient, afterId: bigint, limit: number): Promise<StoredEvent[]> {
    const result = await client.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM usage_events WHERE status = 'unpriced' AND id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
      [afterId.toString(), limit],
    );
    return result.rows.map(eventFromRow);
  }

  async markPriced(client: SqlClient, planned: PlannedEvent[]): Promise<void> {
    if (planned.length === 0) return;
    const rows = planned.map((p) => ({
      event_id: p.event.eventId,
      price_id: p.priceId!.toString(),
      contributor_tier: p.tier,
      user_markup: p.userMarkupText,
      payout_multiplier: p.payoutMultiplierText,
      official_atto: p.amounts!.officialAtto.toString(),
      charge_atto: p.amounts!.chargeAtto.toString(),
      payout_atto: p.amounts!.payoutAtto.toString(),
      margin_atto: p.amounts!.marginAtto.toString(),
    }));
    await client.query(
      `UPDATE usage_events e SET status = 'priced', price_id = x.price_id, contributor_tier = x.contributor_tier,
         user_markup = x.user_markup, payout_multiplier = x.payout_multiplier, official_atto = x.official_atto,
         charge_atto = x.charge_atto, payout_atto = x.payout_atto, margin_atto = x.margin_atto, priced_at = now()
       FROM json_to_recordset($1::json) AS x(event_id text, price_id bigint, contributor_tier text, user_markup text,
         payout_multiplier text, official_atto numeric, charge_atto numeric, payout_atto numeric, margin_atto numeric)
       JOIN usage_event_keys k ON k.event_id = x.event_id
       WHERE e.id = k.id AND e.occurred_at = k.occurred_at AND e.status = 'unpriced'`,
      [JSON.stringify(rows)],
    );
  }

  /** Uses the (status, id) index: an index-only count of the unpriced range. */
  async countUnpriced(): Promise<bigint> {
    const result = await this.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events WHERE status = 'unpriced'`);
    return toBigInt(result.rows[0]!.n);
  }
}

function eventFromRow(r: EventRow): StoredEvent {
  return {
    id: toBigInt(r.id),
    eventId: r.event_id,
    requestHash: r.request_hash,
    userId: r.user_id,
    contributorId: r.contributor_id,
    model: r.model,
    occurredAt: r.occurred_at,
    receivedAt: r.received_at,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    cachedTokens: r.cached_tokens,
    reasoningTokens: r.reasoning_tokens,
    cacheWrite5mTokens: r.cache_write_5m_tokens,
    cacheWrite1hTokens: r.cache_write_1h_tokens,
    promptAudioTokens: r.prompt_audio_tokens,
    cachedAudioTokens: r.cached_audio_tokens,
    promptImageTokens: r.prompt_image_tokens,
    completionAudioTokens: r.completion_audio_tokens,
    completionImageTokens: r.completion_image_tokens,
    webSearchCalls: r.web_search_calls,
    priceVariant: r.price_variant,
    holdId: r.hold_id,
    keyId: r.key_id,
    metadata: r.metadata,
    source: r.source,
    status: r.status,
    priceId: toBigIntOrNull(r.price_id),
    contributorTier: r.contributor_tier as ContributorTierName | null,
    userMarkup: r.user_markup,
    payoutMultiplier: r.payout_multiplier,
    officialAtto: toBigIntOrNull(r.official_atto),
    chargeAtto: toBigIntOrNull(r.charge_atto),
    payoutAtto: toBigIntOrNull(r.payout_atto),
    marginAtto: toBigIntOrNull(r.margin_atto),
    pricedAt: r.priced_at,
    stream: r.stream,
  };
}
