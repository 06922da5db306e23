import { api, queryKeys } from '../../api/endpoints';
import type { Payout } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { Money } from '../../components/money';
import { StatusBadge } from '../../components/status-badge';
import { TxLink } from '../../components/tx-link';
import { formatTimestamp } from '../../lib/format';

export function PayoutsTable({ contributorId }: { contributorId: string }) {
  return (
    <section aria-labelledby={`payouts-${contributorId}`} className="panel">
      <h2 id={`payouts-${contributorId}`}>Payouts</h2>
      <PagedTable<Payout>
        queryKey={queryKeys.payouts(contributorId)}
        fetchPage={(cursor) => api.payouts(contributorId, cursor)}
        loadingLabel="Loading payouts"
        errorTitle="Could not load payouts"
        caption="Payouts, newest first"
        rowKey={(p) => p.payout_id}
        empty="No payouts yet."
        columns={[
          { header: 'Amount', numeric: true, cell: (p) => <Money value={p.amount_usdc} unit="USDC" /> },
          { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
          { header: 'Transaction', cell: (p) => <TxLink hash={p.tx_hash} /> },
          { header: 'Confirmed', cell: (p) => formatTimestamp(p.confirmed_at) },
          { header: 'Note', cell: (p) => p.failure_reason ?? '' },
        ]}
      />
    </section>
  );
}
