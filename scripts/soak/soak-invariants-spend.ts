// The soak's invariants for credit grants, auto top-up and balance thresholds (docs/spend-controls.md),
// from its own record (the grants, credits and settings the service confirmed) and the database:
// - grants_accounted (every step, in the step's snapshot): each grant's funding equals what the
//   soak granted; granted == used (draws less refunds back) + breakage + remaining, per grant and
//   per user; nothing negative; no draw after expiry (but for a few seconds: which clock reading a
//   charge near the expiry took is not known); breakage only after expiry, once, recorded as posted,
//   leaving nothing; at drains every grant expired before the drain is broken, and each draw took
//   the grants expiring first first (replayed in entry order: all grant postings of a user are made
//   under its account lock).
// - topup_within_max / topup_once_per_crossing (at drains): each request asks for the amount of a
//   setting in force, within the month's max with the month's earlier requests that had not failed;
//   between two requests of a user the balance (user account + grants, never below the available
//   balance) was back at or above below_usd, or the settings were put again; one webhook a request.
// - balance_alert_once (at drains): each user.balance_threshold_crossed is below its threshold, and
//   between two of a threshold the balance was back at or above it (or the thresholds were put).
// The service's delivery records (webhook_deliveries) say each of these was delivered under one
// record per endpoint, also to a receiver that was dead; the receivers say each request arrived
// under one webhook-id.
import type pg from 'pg';
import type { SoakContext } from './soak-ops-context.js';
import { formatAtto, usdToAtto, type SpendSetting } from './soak-record.js';

/** A charge near the expiry may have read the clock just before it while its transaction began after. */
const DRAW_AFTER_EXPIRY_SLACK_MS = 5_000;
/** Between the service's transaction start (created_at, before any lock wait) and the soak's record of a PUT. */
const SETTING_SLACK_MS = 10_000;

type Expect = (name: string, ok: boolean, message: () => string) => void;

interface GrantRow {
  grant_id: string;
  user_id: string;
  amount: string;
  expires_ms: number;
  expired_ms: number | null;
  breakage_recorded: string | null;
  remaining: string;
  funded: string;
  funded_n: number;
  drawn: string;
  back: string;
  broken: string;
  broken_n: number;
  broken_ms: number | null;
  last_draw_ms: number | null;
}

/** Per user: what the grants hold now, and what left the user's money for good (breakage, refunds of broken grants' part). */
export interface GrantTotals {
  grantAccountsAtto: bigint;
  lostAtto: bigint;
}

const GRANTS_SQL = `
  SELECT g.grant_id, g.user_id, g.amount_atto::text AS amount,
         (extract(epoch FROM g.expires_at) * 1000)::float8 AS expires_ms, (extract(epoch FROM g.expired_at) * 1000)::float8 AS expired_ms,
         g.breakage_atto::text AS breakage_recorded, coalesce(a.balance_atto, 0)::text AS remaining,
         coalesce(l.funded, 0)::text AS funded, coalesce(l.funded_n, 0)::int AS funded_n, coalesce(l.drawn, 0)::text AS drawn,
         coalesce(l.back, 0)::text AS back, coalesce(l.broken, 0)::text AS broken, coalesce(l.broken_n, 0)::int AS broken_n,
         l.broken_ms::float8 AS broken_ms, l.last_draw_ms::float8 AS last_draw_ms
  FROM user_grants g
  LEFT JOIN accounts a ON a.code = 'grant:' || g.grant_id
  LEFT JOIN (
    SELECT p.code,
           sum(p.amount) FILTER (WHERE j.kind = 'grant') AS funded, count(*) FILTER (WHERE j.kind = 'grant') AS funded_n,
           -sum(p.amount) FILTER (WHERE j.kind = 'grant_use') AS drawn,
           sum(p.amount) FILTER (WHERE j.kind = 'grant_refund') AS back,
           -sum(p.amount) FILTER (WHERE j.kind = 'grant_breakage') AS broken, count(*) FILTER (WHERE j.kind = 'grant_breakage') AS broken_n,
           min(extract(epoch FROM j.created_at) * 1000) FILTER (WHERE j.kind = 'grant_breakage') AS broken_ms,
           max(extract(epoch FROM j.created_at) * 1000) FILTER (WHERE j.kind = 'grant_use') AS last_draw_ms
    FROM journal_entries j, unnest(j.account_codes, j.amounts_atto) AS p(code, amount)
    WHERE j.kind IN ('grant', 'grant_use', 'grant_refund', 'grant_breakage') AND p.code LIKE 'grant:%'
    GROUP BY p.code
  ) l ON l.code = 'grant:' || g.grant_id`;

/** Per user: the part of refunds that went to platform:revenue because the grant that paid it was broken. */
const REFUND_TO_REVENUE_SQL = `
  SELECT u.code AS user_code, coalesce(sum(p.amount) FILTER (WHERE p.code = 'platform:revenue'), 0)::text AS to_revenue
  FROM journal_entries j
  CROSS JOIN LATERAL (SELECT c AS code FROM unnest(j.account_codes) AS c WHERE c LIKE 'user:%' LIMIT 1) u,
       unnest(j.account_codes, j.amounts_atto) AS p(code, amount)
  WHERE j.kind = 'grant_refund' GROUP BY 1`;

/** Postings to grant accounts by entries of any other kind (at drains: a scan of the whole journal). */
const STRAY_GRANT_POSTINGS_SQL = `
  SELECT j.kind, j.ref FROM journal_entries j
  WHERE j.kind NOT IN ('grant', 'grant_use', 'grant_refund', 'grant_breakage') AND EXISTS (SELECT 1 FROM unnest(j.account_codes) AS c WHERE c LIKE 'grant:%') LIMIT 5`;

/** In the step's snapshot. strictBeforeMs: at a drain, every grant expiring before it must be broken. */
export async function checkGrants(ctx: SoakContext, client: pg.PoolClient, expect: Expect, chargesByUser: ReadonlyMap<string, bigint>, strictBeforeMs: number | null): Promise<Map<string, GrantTotals>> {
  const rows = (await client.query<GrantRow>(GRANTS_SQL)).rows;
  const toRevenue = new Map((await client.query<{ user_code: string; to_revenue: string }>(REFUND_TO_REVENUE_SQL)).rows.map((r) => [r.user_code.slice('user:'.length), BigInt(r.to_revenue)]));
  const totals = new Map<string, GrantTotals & { usedAtto: bigint; brokenAtto: bigint }>();
  const seen = new Set<string>();
  for (const g of rows) {
    seen.add(g.grant_id);
    const soak = ctx.record.grants.get(g.grant_id);
    const [amount, funded, drawn, back, broken, remaining] = [g.amount, g.funded, g.drawn, g.back, g.broken, g.remaining].map(BigInt) as [bigint, bigint, bigint, bigint, bigint, bigint];
    const t = totals.get(g.user_id) ?? { grantAccountsAtto: 0n, lostAtto: 0n, usedAtto: 0n, brokenAtto: 0n };
    t.grantAccountsAtto += remaining;
    t.usedAtto += drawn - back;
    t.brokenAtto += broken;
    totals.set(g.user_id, t);
    const what = `grant ${g.grant_id} of ${g.user_id}`;
    expect('grants_accounted', soak !== undefined && soak.userId === g.user_id && soak.amountAtto === amount && soak.expiresAtMs === g.expires_ms, () =>
      soak ? `${what}: stored amount ${formatAtto(amount)} expiring ${new Date(g.expires_ms).toISOString()}, the soak granted ${formatAtto(soak.amountAtto)} to ${soak.userId} expiring ${new Date(soak.expiresAtMs).toISOString()}` : `${what}: a grant the soak never saw confirmed`);
    expect('grants_accounted', funded === amount && g.funded_n === 1, () => `${what}: funded ${formatAtto(funded)} in ${g.funded_n} entries, amount ${formatAtto(amount)}`);
    expect('grants_accounted', drawn >= 0n && back >= 0n && back <= drawn && broken >= 0n && remaining >= 0n && g.broken_n <= 1 && amount === drawn - back + broken + remaining, () =>
      `${what}: amount ${formatAtto(amount)} != used ${formatAtto(drawn)} - refunded back ${formatAtto(back)} + breakage ${formatAtto(broken)} (${g.broken_n} entries) + remaining ${formatAtto(remaining)}`);
    expect('grants_accounted', g.last_draw_ms === null || g.last_draw_ms < g.expires_ms + DRAW_AFTER_EXPIRY_SLACK_MS, () =>
      `${what}: drawn at ${new Date(g.last_draw_ms!).toISOString()}, after its expiry ${new Date(g.expires_ms).toISOString()}`);
    if (g.expired_ms !== null) {
      const recorded = g.breakage_recorded === null ? null : BigInt(g.breakage_recorded);
      expect('grants_accounted', g.expired_ms >= g.expires_ms && (g.broken_ms === null || g.broken_ms >= g.expires_ms - 1) && recorded === broken && remaining === 0n && (g.broken_n === 1) === broken > 0n, () =>
        `${what}: broken at ${new Date(g.expired_ms!).toISOString()} (entry ${g.broken_ms === null ? 'none' : new Date(g.broken_ms).toISOString()}), expires ${new Date(g.expires_ms).toISOString()}; breakage recorded ${g.breakage_recorded}, posted ${formatAtto(broken)}, remaining ${formatAtto(remaining)}`);
    } else {
      expect('grants_accounted', g.broken_n === 0, () => `${what}: a breakage entry but not marked broken`);
      if (strictBeforeMs !== null && g.expires_ms <= strictBeforeMs) {
        expect('grants_accounted', false, () => `${what}: expired at ${new Date(g.expires_ms).toISOString()}, not broken by the drain (${new Date(strictBeforeMs).toISOString()} + the drain's wait)`);
      }
    }
  }
  for (const grant of ctx.record.grants.values()) {
    expect('grants_accounted', seen.has(grant.grantId), () => `grant ${grant.grantId} of ${grant.userId}: confirmed by the service, not in user_grants`);
  }
  const grantedByUser = new Map<string, bigint>();
  for (const grant of ctx.record.grants.values()) grantedByUser.set(grant.userId, (grantedByUser.get(grant.userId) ?? 0n) + grant.amountAtto);
  for (const [userId, granted] of grantedByUser) {
    const t = totals.get(userId) ?? { grantAccountsAtto: 0n, lostAtto: 0n, usedAtto: 0n, brokenAtto: 0n };
    expect('grants_accounted', granted === t.usedAtto + t.brokenAtto + t.grantAccountsAtto && t.usedAtto <= (chargesByUser.get(userId) ?? 0n), () =>
      `${userId}: granted ${formatAtto(granted)} (the soak's sum) != used ${formatAtto(t.usedAtto)} + breakage ${formatAtto(t.brokenAtto)} + remaining ${formatAtto(t.grantAccountsAtto)}, or used more than the charges ${formatAtto(chargesByUser.get(userId) ?? 0n)}`);
  }
  for (const [userId, t] of totals) t.lostAtto = t.brokenAtto + (toRevenue.get(userId) ?? 0n);
  for (const [userId, lost] of toRevenue) if (!totals.has(userId)) totals.set(userId, { grantAccountsAtto: 0n, lostAtto: lost, usedAtto: 0n, brokenAtto: 0n });
  return totals;
}

interface RequestRow {
  request_id: string;
  user_id: string;
  amount: string;
  month: string;
  status: string;
  created_ms: number;
  failed_ms: number | null;
}

/** A user's balance (own account + grant accounts) after each journal entry, in entry order. */
type History = Array<{ ms: number; balanceAtto: bigint }>;

async function balanceHistories(db: pg.Pool, users: readonly string[]): Promise<Map<string, History>> {
  const rows = await db.query<{ owner: string; ms: number; delta: string }>(
    `SELECT coalesce(g.user_id, substr(p.code, 6)) AS owner, j.id, (extract(epoch FROM j.created_at) * 1000)::float8 AS ms, sum(p.amount)::text AS delta
     FROM journal_entries j, unnest(j.account_codes, j.amounts_atto) AS p(code, amount)
     LEFT JOIN user_grants g ON p.code = 'grant:' || g.grant_id
     WHERE p.code = ANY($1::text[]) OR (p.code LIKE 'grant:%' AND g.user_id = ANY($2::text[]))
     GROUP BY 1, 2, 3 ORDER BY j.id`,
    [users.map((u) => `user:${u}`), users],
  );
  const histories = new Map<string, History>(users.map((u) => [u, []]));
  const running = new Map<string, bigint>();
  for (const r of rows.rows) {
    const balance = (running.get(r.owner) ?? 0n) + BigInt(r.delta);
    running.set(r.owner, balance);
    histories.get(r.owner)?.push({ ms: r.ms, balanceAtto: balance });
  }
  return histories;
}

/** The highest balance between two instants (the balance at the start counts). */
function maxBalance(history: History, fromMs: number, toMs: number): bigint {
  let max = 0n;
  for (const h of history) {
    if (h.ms < fromMs) max = h.balanceAtto;
    else if (h.ms <= toMs && h.balanceAtto > max) max = h.balanceAtto;
  }
  return max;
}

/** The settings of one kind a user may have had in force at an instant (a PUT racing it: either). */
function inForce(settings: readonly SpendSetting[], atMs: number): SpendSetting[] {
  const applied = settings.filter((s) => s.applied && s.sentMs <= atMs + SETTING_SLACK_MS);
  const lastDone = applied.findLastIndex((s) => s.doneMs < atMs - SETTING_SLACK_MS);
  return applied.slice(Math.max(0, lastDone));
}

const putBetween = (settings: readonly SpendSetting[], fromMs: number, toMs: number) =>
  settings.some((s) => s.sentMs <= toMs + SETTING_SLACK_MS && s.doneMs >= fromMs - SETTING_SLACK_MS);

/** At drains: top-up requests and balance threshold alerts against the settings and the balance history. */
export async function checkBalanceWatch(ctx: SoakContext, expect: Expect): Promise<void> {
  const db = ctx.stack.db;
  const requests = (await db.query<RequestRow>(
    `SELECT request_id, user_id, amount_atto::text AS amount, month::text AS month, status,
            (extract(epoch FROM created_at) * 1000)::float8 AS created_ms, (extract(epoch FROM failed_at) * 1000)::float8 AS failed_ms
     FROM user_topup_requests ORDER BY created_at, request_id`,
  )).rows;
  const events = (await db.query<{ message_id: string; type: string; data: Record<string, string>; created_ms: number }>(
    `SELECT message_id, type, data, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms FROM webhook_events
     WHERE type IN ('user.topup_requested', 'user.balance_threshold_crossed') ORDER BY id`,
  )).rows;
  const users = [...new Set([...requests.map((r) => r.user_id), ...events.map((e) => e.data.user_id!)])];
  const histories = await balanceHistories(db, users);
  const settingsOf = (userId: string, kind: 'topup' | 'thresholds') =>
    ctx.record.spendSettings.filter((s) => s.userId === userId && (kind === 'topup' ? s.topup !== null : s.thresholdsAtto !== null));

  // One webhook event per request, with its amount; none without a request.
  const announced = new Map<string, Array<{ amount_usd: string; user_id: string }>>();
  for (const e of events.filter((e) => e.type === 'user.topup_requested')) announced.set(e.data.request_id!, [...(announced.get(e.data.request_id!) ?? []), { amount_usd: e.data.amount_usd!, user_id: e.data.user_id! }]);
  for (const r of requests) {
    const a = announced.get(r.request_id) ?? [];
    expect('topup_once_per_crossing', a.length === 1 && usdToAtto(a[0]!.amount_usd) === BigInt(r.amount) && a[0]!.user_id === r.user_id, () => `request ${r.request_id} of ${r.user_id} (${formatAtto(BigInt(r.amount))}): announced ${JSON.stringify(a)}`);
    announced.delete(r.request_id);
  }
  expect('topup_once_per_crossing', announced.size === 0, () => `user.topup_requested without a request: ${[...announced.keys()].slice(0, 5).join(', ')}`);

  const previous = new Map<string, RequestRow>();
  for (const [i, r] of requests.entries()) {
    const settings = settingsOf(r.user_id, 'topup');
    const candidates = inForce(settings, r.created_ms).filter((s) => s.topup!.enabled && s.topup!.amountAtto === BigInt(r.amount));
    const what = `request ${r.request_id} of ${r.user_id} at ${new Date(r.created_ms).toISOString()} for ${formatAtto(BigInt(r.amount))}`;
    // Earlier requests of the month that had not failed when this one was made.
    const before = requests.slice(0, i).filter((p) => p.user_id === r.user_id && p.month === r.month && (p.failed_ms === null || p.failed_ms > r.created_ms + SETTING_SLACK_MS));
    const beforeAtto = before.reduce((n, p) => n + BigInt(p.amount), 0n);
    const maxAtto = candidates.reduce((m, s) => (s.topup!.maxPerMonthAtto > m ? s.topup!.maxPerMonthAtto : m), -1n);
    expect('topup_within_max', candidates.length > 0 && beforeAtto + BigInt(r.amount) <= maxAtto, () =>
      candidates.length === 0 ? `${what}: no enabled auto top-up of that amount was in force` : `${what}: the month's earlier requests ${formatAtto(beforeAtto)} + this one pass the max ${formatAtto(maxAtto)}`);
    const p = previous.get(r.user_id);
    previous.set(r.user_id, r);
    if (!p || candidates.length === 0) continue;
    // Armed again only when the available balance (<= the balance) was seen at or above below_usd, or by a PUT.
    const belowAtto = [...inForce(settings, p.created_ms), ...candidates].reduce((m, s) => (s.topup!.belowAtto < m ? s.topup!.belowAtto : m), candidates[0]!.topup!.belowAtto);
    const highest = maxBalance(histories.get(r.user_id) ?? [], p.created_ms - SETTING_SLACK_MS, r.created_ms + SETTING_SLACK_MS);
    expect('topup_once_per_crossing', putBetween(settings, p.created_ms, r.created_ms) || highest >= belowAtto, () =>
      `${what}: the previous request ${p.request_id} at ${new Date(p.created_ms).toISOString()}, and in between the balance never reached below_usd ${formatAtto(belowAtto)} (at most ${formatAtto(highest)}) nor was auto top-up put again`);
  }

  const lastAlert = new Map<string, number>();
  for (const e of events.filter((e) => e.type === 'user.balance_threshold_crossed')) {
    const { user_id, threshold_usd, available_usd } = e.data as Record<string, string>;
    const thresholdAtto = usdToAtto(threshold_usd!);
    const key = `${user_id}:${thresholdAtto}`;
    const what = `user.balance_threshold_crossed ${e.message_id} (${user_id}, threshold ${threshold_usd}, available ${available_usd}) at ${new Date(e.created_ms).toISOString()}`;
    const settings = settingsOf(user_id!, 'thresholds');
    expect('balance_alert_once', usdToAtto(available_usd!) < thresholdAtto && settings.some((s) => s.thresholdsAtto!.includes(thresholdAtto)), () => `${what}: not below its threshold, or a threshold the soak never set`);
    const p = lastAlert.get(key);
    lastAlert.set(key, e.created_ms);
    if (p === undefined) continue;
    const highest = maxBalance(histories.get(user_id!) ?? [], p - SETTING_SLACK_MS, e.created_ms + SETTING_SLACK_MS);
    expect('balance_alert_once', putBetween(settings, p, e.created_ms) || highest >= thresholdAtto, () =>
      `${what}: announced before at ${new Date(p).toISOString()}, and in between the balance never reached the threshold (at most ${formatAtto(highest)}) nor were the thresholds put again`);
  }

  // The service's delivery records: one per event and endpoint (also for a receiver that was dead).
  const doubled = await db.query<{ message_id: string; n: number }>(
    `SELECT e.message_id, count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE e.type IN ('user.topup_requested', 'user.balance_threshold_crossed', 'user.topup_disabled') GROUP BY e.message_id, d.endpoint_id HAVING count(*) > 1 LIMIT 5`,
  );
  expect('balance_alert_once', doubled.rows.length === 0, () => `delivered under more than one record to one endpoint: ${JSON.stringify(doubled.rows)}`);
  // What arrived: each request under one webhook-id at every receiver, whatever the retries.
  for (const [receiver, seen] of Object.entries(ctx.stack.webhooks.topupRequests)) {
    const repeated = [...seen.values()].filter((s) => s.ids.size > 1).map((s) => `${s.request_id} x${s.ids.size}`);
    expect('topup_once_per_crossing', repeated.length === 0, () => `${receiver}: a request under more than one webhook-id ${JSON.stringify(repeated.slice(0, 5))}`);
  }
  const stray = await db.query<{ kind: string; ref: string }>(STRAY_GRANT_POSTINGS_SQL);
  expect('grants_accounted', stray.rows.length === 0, () => `entries of other kinds post to grant accounts: ${JSON.stringify(stray.rows)}`);
  await checkDrawOrder(db, expect);
}

/**
 * The one expiring first first: every posting to a user's grant accounts is made under the user's
 * account row lock, so entry ids order them as they happened. Replaying them, each grant_use entry
 * leaves empty every grant of the user that held money before it, was not expired, and expires
 * before the last one it drew from (ties by grant id). A grant whose expiry is within
 * DRAW_AFTER_EXPIRY_SLACK_MS of the entry is left out: which side of it the charge's clock read fell is not known.
 */
async function checkDrawOrder(db: pg.Pool, expect: Expect): Promise<void> {
  const grants = new Map((await db.query<{ grant_id: string; user_id: string; expires_ms: number }>(
    'SELECT grant_id, user_id, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms FROM user_grants',
  )).rows.map((g) => [g.grant_id, g]));
  const postings = (await db.query<{ id: string; kind: string; ms: number; code: string; amount: string }>(
    `SELECT j.id::text, j.kind, (extract(epoch FROM j.created_at) * 1000)::float8 AS ms, p.code, p.amount::text AS amount
     FROM journal_entries j, unnest(j.account_codes, j.amounts_atto) AS p(code, amount)
     WHERE j.kind IN ('grant', 'grant_use', 'grant_refund', 'grant_breakage') AND p.code LIKE 'grant:%' ORDER BY j.id`,
  )).rows;
  const key = (g: { expires_ms: number; grant_id: string }) => [g.expires_ms, g.grant_id] as const;
  const before = (a: readonly [number, string], b: readonly [number, string]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const balance = new Map<string, bigint>();
  for (let i = 0; i < postings.length; ) {
    const entry = postings[i]!;
    const own = [];
    for (; i < postings.length && postings[i]!.id === entry.id; i++) own.push(postings[i]!);
    const held = new Map(balance);
    for (const p of own) balance.set(p.code.slice('grant:'.length), (balance.get(p.code.slice('grant:'.length)) ?? 0n) + BigInt(p.amount));
    if (entry.kind !== 'grant_use') continue;
    const drawn = own.map((p) => grants.get(p.code.slice('grant:'.length))).filter((g) => g !== undefined);
    if (drawn.length === 0) continue;
    const last = drawn.reduce((a, b) => (before(key(a), key(b)) ? b : a));
    const skipped = [...grants.values()].filter(
      (g) => g.user_id === last.user_id && (held.get(g.grant_id) ?? 0n) > 0n && (balance.get(g.grant_id) ?? 0n) > 0n && before(key(g), key(last)) && g.expires_ms > entry.ms + DRAW_AFTER_EXPIRY_SLACK_MS,
    );
    expect('grants_accounted', skipped.length === 0, () =>
      `grant_use ${entry.id} at ${new Date(entry.ms).toISOString()} drew from ${last.grant_id} (expires ${new Date(last.expires_ms).toISOString()}) while ${skipped.map((g) => `${g.grant_id} (expires ${new Date(g.expires_ms).toISOString()}, held ${formatAtto(balance.get(g.grant_id)!)})`).join(', ')} expiring first kept money`);
  }
}
