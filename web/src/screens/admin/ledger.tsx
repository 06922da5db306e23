import { useQuery } from '@tanstack/react-query';
import { api, queryKeys } from '../../api/endpoints';
import type { LedgerCheck } from '../../api/wire';
import { DataTable, type Column } from '../../components/data-table';
import { Money } from '../../components/money';
import { QueryView } from '../../components/states';
import { Stat, StatGrid } from '../../components/stat';
import { StatusBadge } from '../../components/status-badge';
import { formatCount } from '../../lib/format';
import { moneyColumn, statusColumn } from '../../components/columns';

const CORE_FIELDS = new Set(['ok', 'journal_entries', 'postings_sum', 'postings_sum_atto', 'unbalanced_entries', 'mismatched_accounts', 'held_mismatches']);

/** The checks other modules add to the report (rollups, chain), each an object with `ok`. */
export function extraChecks(report: LedgerCheck): Array<{ name: string; ok: boolean; detail: unknown }> {
  return Object.entries(report)
    .filter(([name, value]) => !CORE_FIELDS.has(name) && typeof value === 'object' && value !== null && 'ok' in value)
    .map(([name, value]) => ({ name, ok: (value as { ok: unknown }).ok === true, detail: value }));
}

/** Accounts the check found off, with the two amounts it compared. */
function AccountMismatches<T extends { account: string }>({ caption, rows, amounts }: { caption: string; rows: T[]; amounts: Array<Column<T>> }) {
  return <DataTable<T> caption={caption} rows={rows} rowKey={(m) => m.account} empty="None." columns={[{ header: 'Account', cell: (m) => <code>{m.account}</code> }, ...amounts]} />;
}

export function LedgerScreen() {
  const check = useQuery({ queryKey: queryKeys.ledgerCheck, queryFn: api.ledgerCheck });
  return (
    <section aria-labelledby="ledger-title">
      <h1 id="ledger-title">Ledger check</h1>
      <p className="muted">Recomputes every balance from the journal’s postings and proves they sum to zero.</p>
      <button type="button" onClick={() => void check.refetch()} disabled={check.isFetching}>
        {check.isFetching ? 'Checking…' : 'Run the check again'}
      </button>
      <QueryView query={check} label="the ledger check">
        {(r) => (
          <>
            <p className="ledger-verdict" data-ledger-ok={String(r.ok)}>
              <StatusBadge status={r.ok ? 'ok' : 'failed'} /> {r.ok ? 'The ledger balances.' : 'The ledger check FAILED: see below.'}
            </p>
            <StatGrid label="Journal">
              <Stat label="Journal entries" name="journal_entries">{formatCount(r.journal_entries)}</Stat>
              <Stat label="Sum of all postings" name="postings_sum"><Money value={r.postings_sum} /></Stat>
              <Stat label="Unbalanced entries" name="unbalanced_entries">{formatCount(r.unbalanced_entries)}</Stat>
            </StatGrid>
            <AccountMismatches<(typeof r.mismatched_accounts)[number]>
              caption="Accounts whose stored balance differs from their postings" rows={r.mismatched_accounts}
              amounts={[moneyColumn('Stored', (m) => m.stored_usd), moneyColumn('From postings', (m) => m.postings_usd)]}
            />
            <AccountMismatches<(typeof r.held_mismatches)[number]>
              caption="Held amounts that differ from active holds" rows={r.held_mismatches}
              amounts={[moneyColumn('Held', (m) => m.held_usd), moneyColumn('Active holds', (m) => m.active_holds_usd)]}
            />
            <DataTable<ReturnType<typeof extraChecks>[number]>
              caption="Further checks" rows={extraChecks(r)} rowKey={(c) => c.name} empty="None registered."
              columns={[
                { header: 'Check', cell: (c) => c.name.replace(/_/g, ' ') },
                statusColumn((c) => c.ok ? 'ok' : 'failed', 'Result'),
                {
                  header: 'Detail',
                  cell: (c) => (
                    <details>
                      <summary>details</summary>
                      <pre className="json">{JSON.stringify(c.detail, null, 2)}</pre>
                    </details>
                  ),
                },
              ]}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}
