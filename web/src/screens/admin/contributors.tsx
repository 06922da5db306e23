import { useInfiniteQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { ContributorRow } from '../../api/wire';
import { DataTable } from '../../components/data-table';
import { Money } from '../../components/money';
import { ErrorMessage, Loading } from '../../components/states';
import { StatusBadge } from '../../components/status-badge';
import { shortHash } from '../../lib/format';
import { StatusToggle } from './contributor-actions';

const route = getRouteApi('/contributors');

export function ContributorsScreen() {
  const { q = '' } = route.useSearch();
  const navigate = route.useNavigate();
  const [text, setText] = useState(q);
  const list = useInfiniteQuery({
    queryKey: queryKeys.contributors(q),
    queryFn: ({ pageParam }) => api.contributors(q, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const search = (event: FormEvent) => {
    event.preventDefault();
    void navigate({ search: text.trim() ? { q: text.trim() } : {} });
  };
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];

  return (
    <section aria-labelledby="contributors-title">
      <h1 id="contributors-title">Contributors</h1>
      <form role="search" onSubmit={search} className="search">
        <label htmlFor="contributor-search">Find a contributor</label>
        <input id="contributor-search" type="search" placeholder="id or payout address" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      {list.isPending ? (
        <Loading label="Loading contributors" />
      ) : list.isError ? (
        <ErrorMessage error={list.error} title="Could not load contributors" />
      ) : (
        <>
          <DataTable<ContributorRow>
            caption={q ? `Contributors matching “${q}”` : 'Contributors'}
            rows={rows}
            rowKey={(c) => c.id}
            empty={q ? `No contributor id or payout address contains “${q}”.` : 'No contributors registered yet.'}
            columns={[
              { header: 'Contributor', cell: (c) => <Link to="/contributors/$contributorId" params={{ contributorId: c.id }}>{c.id}</Link> },
              { header: 'Tier', cell: (c) => c.tier },
              { header: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
              { header: 'Payout address', cell: (c) => <code title={c.payout_address}>{shortHash(c.payout_address)}</code> },
              ...(rows.some((c) => c.balances.pending_usd !== undefined)
                ? [{ header: 'Pending', numeric: true, cell: (c: ContributorRow) => <Money value={c.balances.pending_usd} /> }]
                : []),
              { header: 'Payable', numeric: true, cell: (c) => <Money value={c.balances.payable_usd} /> },
              { header: 'In settlement', numeric: true, cell: (c) => <Money value={c.balances.in_settlement_usd} /> },
              { header: 'Paid', numeric: true, cell: (c) => <Money value={c.balances.paid_usd} /> },
              { header: 'Accrued', numeric: true, cell: (c) => <Money value={c.balances.accrued_usd} /> },
              { header: 'Actions', cell: (c) => <StatusToggle contributor={c} /> },
            ]}
          />
          {list.hasNextPage && (
            <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </button>
          )}
        </>
      )}
    </section>
  );
}
