// Reads the database directly (not through the API) to count what was really stored and billed.
import pg from 'pg';
import { expectedChargesByUser, ORACLE_USER_CREDIT_ATTO, oracleAmounts, type UsageBody } from './usage-oracle.js';

export interface BillingFigures {
  /** Unique events the client tried to deliver. */
  expectedEvents: number;
  /** Of those, rows found in usage_events. */
  foundInDb: number;
  /** event_ids stored more than once (the unique index should make this impossible). */
  doubledEvents: number;
  /** usage journal entries whose ref appears more than once, or more entries than priced events. */
  doubledJournalEntries: number;
  usageJournalEntries: number;
  pricedEvents: number;
  /** Rows whose amounts differ from the oracle's. */
  wrongAmounts: number;
  /** Per user: credit - balance == exact sum of oracle charges over its stored events. */
  balanceMismatches: Array<{ user: string; expectedAtto: string; actualAtto: string }>;
  /** Acknowledged event_ids missing from the database (must be empty). */
  lostAcknowledged: string[];
}

export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Compares the database with what the client sent and what was acknowledged: every acknowledged
 * event stored, nothing twice, amounts and user balances exact (bigint) against the oracle.
 */
/** usage_events rows whose event_id starts with `${prefix}-`. */
export async function storedWithPrefix(databaseUrl: string, prefix: string): Promise<number> {
  return withClient(databaseUrl, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM usage_events WHERE event_id LIKE $1', [`${prefix}-%`])).rows[0]!.n));
}

export async function billingFigures(input: {
  databaseUrl: string;
  events: UsageBody[];
  acknowledged: Iterable<string>;
  /** Events billed earlier to the same users (checked before), for the balance comparison. */
  earlierEvents?: UsageBody[];
}): Promise<BillingFigures> {
  return withClient(input.databaseUrl, async (client) => {
    const ids = input.events.map((e) => e.event_id);
    const stored = await client.query<{ event_id: string; user_id: string; status: string; charge_atto: string | null; payout_atto: string | null; margin_atto: string | null }>(
      'SELECT event_id, user_id, status, charge_atto, payout_atto, margin_atto FROM usage_events WHERE event_id = ANY($1::text[])',
      [ids],
    );
    const byId = new Map(stored.rows.map((r) => [r.event_id, r]));
    const doubledEvents = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM (SELECT event_id FROM usage_events GROUP BY event_id HAVING count(*) > 1) d',
    );
    const journal = await client.query<{ entries: string; doubled: string }>(
      `SELECT count(*) AS entries,
              (SELECT count(*) FROM (SELECT ref FROM journal_entries WHERE kind = 'usage' GROUP BY ref HAVING count(*) > 1) d) AS doubled
       FROM journal_entries WHERE kind = 'usage'`,
    );
    const priced = await client.query<{ n: string }>("SELECT count(*) AS n FROM usage_events WHERE status = 'priced'");
    let wrongAmounts = 0;
    const storedEvents: UsageBody[] = [];
    for (const event of input.events) {
      const row = byId.get(event.event_id);
      if (!row) continue;
      storedEvents.push(event);
      const expected = oracleAmounts(event);
      if (row.status !== 'priced' || BigInt(row.charge_atto!) !== expected.chargeAtto || BigInt(row.payout_atto!) !== expected.payoutAtto || BigInt(row.margin_atto!) !== expected.marginAtto) {
        wrongAmounts += 1;
      }
    }
    const expectedByUser = expectedChargesByUser([...storedEvents, ...(input.earlierEvents ?? [])]);
    const balances = await client.query<{ code: string; balance_atto: string }>(
      'SELECT code, balance_atto FROM accounts WHERE code = ANY($1::text[])',
      [[...expectedByUser.keys()].map((u) => `user:${u}`)],
    );
    const balanceMismatches: BillingFigures['balanceMismatches'] = [];
    for (const [user, chargedAtto] of expectedByUser) {
      const row = balances.rows.find((r) => r.code === `user:${user}`);
      const actualSpentAtto = row ? ORACLE_USER_CREDIT_ATTO - BigInt(row.balance_atto) : 0n;
      if (actualSpentAtto !== chargedAtto) balanceMismatches.push({ user, expectedAtto: chargedAtto.toString(), actualAtto: actualSpentAtto.toString() });
    }
    const usageJournalEntries = Number(journal.rows[0]!.entries);
    const pricedEvents = Number(priced.rows[0]!.n);
    return {
      expectedEvents: input.events.length,
      foundInDb: stored.rowCount ?? 0,
      doubledEvents: Number(doubledEvents.rows[0]!.n),
      doubledJournalEntries: Number(journal.rows[0]!.doubled) + Math.max(0, usageJournalEntries - pricedEvents),
      usageJournalEntries,
      pricedEvents,
      wrongAmounts,
      balanceMismatches,
      lostAcknowledged: [...input.acknowledged].filter((id) => !byId.has(id)),
    };
  });
}

export interface LedgerCheck {
  ok: boolean;
  body: unknown;
}

/**
 * What every usage scenario asserts last, whatever it broke: no event stored twice, no usage
 * journal entry twice, every stored amount and every user balance exact against the oracle, and
 * the API's own ledger check clean. (Whether every event arrived is the scenario's own check.)
 */
export function expectBilledExactlyOnce(figures: BillingFigures, check: LedgerCheck): void {
  expect(figures.doubledEvents).toBe(0);
  expect(figures.doubledJournalEntries).toBe(0);
  expect(figures.wrongAmounts).toBe(0);
  expect(figures.balanceMismatches).toEqual([]);
  expect(check).toMatchObject({ ok: true });
}

/** The ledger check of /v1/admin/ledger/check, read through the API. */
export async function ledgerCheck(baseUrl: string, adminKey: string): Promise<LedgerCheck> {
  const response = await fetch(`${baseUrl}/v1/admin/ledger/check`, { headers: { authorization: `Bearer ${adminKey}` } });
  const body = (await response.json()) as { ok?: boolean };
  return { ok: response.status === 200 && body.ok === true, body };
}
