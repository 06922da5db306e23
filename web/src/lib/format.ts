// Dates and hashes as the console shows them. Timestamps are UTC, like the API and the ledger's days.

/** "2026-11-29T10:00:05.123Z" -> "2026-11-29 10:00:05 UTC". */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '—';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** "0x1234…abcd" for narrow cells; the full value stays in the title and the link. */
export function shortHash(hash: string, keep = 6): string {
  return hash.length <= keep * 2 + 2 ? hash : `${hash.slice(0, keep + 2)}…${hash.slice(-keep)}`;
}

/** A UTC day `days` after `day` ("2026-11-30", 1 -> "2026-12-01"). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The default range of the charts: the last 30 UTC days, today included ([from, to)). */
export function lastDays(days: number, now: Date = new Date()): { from: string; to: string } {
  const to = addDays(todayUtc(now), 1);
  return { from: addDays(to, -days), to };
}

/** The block explorer's page of a transaction, from CHAIN_EXPLORER_TX_URL; null when none is set. */
export function explorerTxUrl(template: string | null | undefined, txHash: string): string | null {
  if (!template) return null;
  return template.includes('{tx_hash}') ? template.replaceAll('{tx_hash}', txHash) : `${template}${txHash}`;
}

export function formatCount(value: number): string {
  // Counts are JSON integers (tokens, events), not money: grouping them is safe on the digit string.
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
