// A fingerprint of everything the service stores: row count and an order-independent hash of the
// rows of every table. Equal fingerprints before and after a refused request = no state change.
import { DatabaseService } from '../../../src/database/database.service.js';
import type { TestApp } from '../../support/test-app.js';

export interface StateSnapshot {
  /** table -> "rows:hash" */
  tables: Record<string, string>;
  /** The money view, for readable failure messages. */
  money: { journalEntries: string; balanceSumAtto: string; heldSumAtto: string; usageEvents: string; holds: string };
}

const IGNORED_TABLES = new Set(['_prisma_migrations']);
/**
 * Columns that any authenticated request may write, refused or not: when a key was last used
 * (written at most once a minute per key, off the request path) is bookkeeping, not a state change.
 */
const IGNORED_COLUMNS: Record<string, readonly string[]> = { api_keys: ['last_used_at'] };

export class StateProbe {
  private tables: string[] | null = null;

  constructor(private readonly t: TestApp) {}

  private get pool() {
    return this.t.app.get(DatabaseService).pool;
  }

  async snapshot(): Promise<StateSnapshot> {
    if (!this.tables) {
      const res = await this.pool.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
      );
      this.tables = res.rows.map((r) => r.name).filter((name) => !IGNORED_TABLES.has(name) && /^[a-z_][a-z0-9_]*$/.test(name));
    }
    const rowText = (name: string) => {
      const ignored = IGNORED_COLUMNS[name];
      return ignored ? `(to_jsonb(x) - ARRAY[${ignored.map((c) => `'${c}'`).join(', ')}])::text` : 'x::text';
    };
    const parts = this.tables.map(
      (name) => `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(md5(string_agg(md5(${rowText(name)}), ',' ORDER BY md5(${rowText(name)}))), '-') AS fp FROM "${name}" x`,
    );
    const rows = (await this.pool.query<{ name: string; fp: string }>(parts.join(' UNION ALL '))).rows;
    const money = (
      await this.pool.query<{ journal: string; balance: string; held: string; events: string; holds: string }>(
        `SELECT (SELECT count(*) FROM journal_entries)::text AS journal,
                (SELECT coalesce(sum(balance_atto), 0) FROM accounts)::text AS balance,
                (SELECT coalesce(sum(held_atto), 0) FROM accounts)::text AS held,
                (SELECT count(*) FROM usage_events)::text AS events,
                (SELECT count(*) FROM holds)::text AS holds`,
      )
    ).rows[0]!;
    return {
      tables: Object.fromEntries(rows.map((r) => [r.name, r.fp])),
      money: { journalEntries: money.journal, balanceSumAtto: money.balance, heldSumAtto: money.held, usageEvents: money.events, holds: money.holds },
    };
  }
}

/** Tables whose fingerprint differs. */
export function changedTables(before: StateSnapshot, after: StateSnapshot): string[] {
  const names = new Set([...Object.keys(before.tables), ...Object.keys(after.tables)]);
  return [...names].filter((name) => before.tables[name] !== after.tables[name]).sort();
}
