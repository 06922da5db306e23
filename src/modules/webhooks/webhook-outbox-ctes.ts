// The outbox insert as data-modifying CTEs, for the one writer whose whole group commit is ONE
// statement (UsageRepository.insertEventsAndPost). They follow the rules of their TypeScript
// twins (the ledger's low-balance-crossings.ts, the usage writer's unpriced-announcements.ts) and
// WebhookOutboxRepository (nothing stored that nobody would receive). Each writes nothing unless
// its condition holds, so the hot path pays a filter over rows the statement already has.
// Payloads are built here, so the integration tests check them against the type's schema.

/** A message id like newMessageId(): msg_ + 32 hex digits. */
const MESSAGE_ID_SQL = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;
/** Exact decimal USD text of an atto amount: x 1e-18 is exact in NUMERIC, trim_scale drops zeros. */
const usd = (atto: string) => `trim_scale((${atto}) * 1e-18)::text`;
const HOUR_SQL = `date_trunc('hour', now() AT TIME ZONE 'UTC')`;

function subscribed(type: string): string {
  return `EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.status <> 'deleted' AND e.contributor_id IS NULL AND '${type}' = ANY (e.event_types))`;
}

/**
 * user.balance_low: users whose balance went from at least the threshold ($thresholdParam, atto)
 * to below it. `balances`: rows (code, kind, owner_id, balance_atto) after the update; `deltas`:
 * (code, amount) of the update.
 */
export function lowBalanceOutboxCte(input: { name: string; balances: string; deltas: string; thresholdParam: number }): string {
  const threshold = `$${input.thresholdParam}::numeric`;
  return `${input.name} AS (
     INSERT INTO webhook_events (message_id, type, occurred_at, data, for_admin)
     SELECT ${MESSAGE_ID_SQL}, 'user.balance_low', now(),
       jsonb_build_object('user_id', a.owner_id, 'balance_usd', ${usd('a.balance_atto')},
         'previous_balance_usd', ${usd('a.balance_atto - d.amount')}, 'threshold_usd', ${usd(threshold)}), true
     FROM ${input.balances} a JOIN ${input.deltas} d ON d.code = a.code
     WHERE a.kind = 'user' AND d.amount < 0 AND a.balance_atto < ${threshold} AND a.balance_atto - d.amount >= ${threshold}
       AND ${subscribed('user.balance_low')}
     RETURNING 1
   )`;
}

/**
 * usage.unpriced: the first unpriced event (by event id) of each model in $modelsParam (the models
 * the writer has not announced this hour; usually none) among the rows `source` wrote. The dedupe
 * key (model and hour) makes it once across processes.
 */
export function unpricedOutboxCte(input: { name: string; source: string; modelsParam: number }): string {
  return `${input.name} AS (
     INSERT INTO webhook_events (message_id, type, occurred_at, data, for_admin, dedupe_key)
     SELECT DISTINCT ON (s.model) ${MESSAGE_ID_SQL}, 'usage.unpriced', s.occurred_at,
       jsonb_build_object('model', s.model, 'hour', to_char(${HOUR_SQL}, 'YYYY-MM-DD"T"HH24:00:00.000"Z"'),
         'event_id', s.event_id, 'occurred_at', to_char(s.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), true,
       'usage.unpriced:' || s.model || ':' || to_char(${HOUR_SQL}, 'YYYY-MM-DD"T"HH24"Z"')
     FROM ${input.source} s
     WHERE s.status = 'unpriced' AND s.model = ANY ($${input.modelsParam}::text[]) AND ${subscribed('usage.unpriced')}
     ORDER BY s.model, s.event_id
     ON CONFLICT DO NOTHING
     RETURNING 1
   )`;
}
