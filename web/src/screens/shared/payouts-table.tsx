import { api, queryKeys } from '../../api/endpoints';
import type { Payout } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { moneyColumn, statusColumn, timeColumn, txColumn } from '../../components/columns';

export function PayoutsTable({ contributorId }: { contributorId: string }) {
  return (
    <section aria-labelledby={`payouts-${contributorId}`} className="panel">
      <h2 id={`payouts-${contributorId}`}>Payouts</h2>
      <PagedTable<Payout>
        queryKey={queryKeys.payouts(contributorId)} fetchPage={(cursor) => api.payouts(contributorId, cursor)} what="payouts"
        caption="Payouts, newest first" rowKey={(p) => p.payout_id} empty="No payouts yet."
        columns={[
          moneyColumn('Amount', (p) => p.amount_usdc, 'USDC'),
          statusColumn((p) => p.status),
          txColumn((p) => p.tx_hash),
          timeColumn('Confirmed', (p) => p.confirmed_at),
          { header: 'Note', cell: (p) => p.failure_reason ?? '' },
        ]}
      />
    </section>
  );
}
