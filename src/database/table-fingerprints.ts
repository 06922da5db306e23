// One round trip for the table fingerprints a group commit reads together. Each usage group asks
// for the price catalog's and the tier history's fingerprint (VersionedSnapshot.getFresh) in the
// same tick; sent separately they were two queries, two socket writes and two Postgres
// executions per group, which single-event load pays per few events.
import type pg from 'pg';

/**
 * The fingerprint of a table with a version row (migration 20261203001100: prices,
 * contributor_tiers): `v<version>`, the value a statement-level trigger writes in the transaction
 * that changes the table, so one row of a one-page table instead of counting every row. Without
 * the row (a hand-cleared table_versions) it is `count:max(id)` as before, which never starts with
 * `v`, so the two kinds never compare equal. Use the same expression inside the statement that
 * loads the table, so the loaded rows and their fingerprint come from one snapshot.
 */
export function tableFingerprintSql(table: 'prices' | 'contributor_tiers'): string {
  return `coalesce((SELECT 'v' || version::text FROM table_versions WHERE name = '${table}'), (SELECT count(*)::text || ':' || coalesce(max(id), 0)::text FROM ${table}))`;
}

/** A scalar subquery returning the fingerprint as text; equal text means equal table contents. */
export interface FingerprintQuery {
  /** Names the combined statement's column (and, sorted, the prepared statement). */
  name: string;
  sql: string;
}

interface Waiting {
  query: FingerprintQuery;
  resolve: (fingerprint: string) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads requested in one tick (before the microtask queue drains) go out as one SELECT. Freshness
 * is as if each were sent alone: the statement is sent after every call it answers.
 */
export class TableFingerprints {
  private waiting: Waiting[] = [];

  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  read(query: FingerprintQuery): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) queueMicrotask(() => this.flush());
      this.waiting.push({ query, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    const distinct = [...new Map(batch.map((w) => [w.query.name, w.query])).values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const text = `SELECT ${distinct.map((q) => `(${q.sql}) AS "${q.name}"`).join(', ')}`;
    // Named by its parts: a prepared statement per combination (in practice one or two).
    const name = `fingerprints_${distinct.map((q) => q.name).join('_')}`;
    this.pool.query<Record<string, string>>({ name, text, values: [] }).then(
      (result) => {
        const row = result.rows[0]!;
        for (const w of batch) w.resolve(row[w.query.name]!);
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    );
  }
}
