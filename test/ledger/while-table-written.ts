import pg from 'pg';

/**
 * Runs `fn` while another connection holds ROW EXCLUSIVE on `table` (what an INSERT or UPDATE in
 * flight holds until it commits: it conflicts with a frontier's SHARE lock), then rolls it back.
 */
export async function whileTableWritten<T>(databaseUrl: string, table: 'usage_events' | 'journal_entries', fn: () => Promise<T>): Promise<T> {
  const writer = new pg.Client({ connectionString: databaseUrl });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(`LOCK TABLE ${table} IN ROW EXCLUSIVE MODE`);
    return await fn();
  } finally {
    await writer.query('ROLLBACK').catch(() => undefined);
    await writer.end();
  }
}
