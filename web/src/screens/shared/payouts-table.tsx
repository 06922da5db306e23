import { useInfiniteQuery } from '@tanstack/react-query';
import { api, queryKeys } from '../../api/endpoints';
import type { Payout } from '../../api/wire';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, Loading } from '../../components/states';
import { StatusBadge } from '../../components/status-badge';
import { TxLink } from '../../components/tx-link';
import { formatTimestamp } from '../../lib/format';

export function PayoutsTable({ contributorId }: { contributorId: string }) {
  const payouts = useInfiniteQuery({
    queryKey: queryKeys.payouts(contributorId),
    queryFn: ({ pageParam }) => api.payouts(contributorId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  return (
    <section aria-labelledby={`payouts-${contributorId}`} className="panel">
      <h2 id={`payouts-${contributorId}`}>Payouts</h2>
      {payouts.isPending ? (
        <Loading label="Loading payouts" />
      ) : payouts.isError ? (
        <ErrorMessage error={payouts.error} title="Could not load payouts" />
      ) : (
        <>
          <DataTable<Payout>
            caption="Payouts, newest first"
            rows={payouts.data.pages.flatMap((p) => p.data)}
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
          {payouts.hasNextPage && (
            <button type="button" onClick={() => void payouts.fetchNextPage()} disabled={payouts.isFetchingNextPage}>
              Load more
            </button>
          )}
        </>
      )}
    </section>
  );
}
