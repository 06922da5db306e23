import { getRouteApi, Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { ContributorRow } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { Money } from '../../components/money';
import { StatusBadge } from '../../components/status-badge';
import { shortHash } from '../../lib/format';
import { StatusToggle } from './contributor-actions';

const route = getRouteApi('/contributors');

export function ContributorsScreen() {
  const { q = '' } = route.useSearch();
  const navigate = route.useNavigate();
  const [text, setText] = useState(q);
  const search = (event: FormEvent) => {
    event.preventDefault();
    void navigate({ search: text.trim() ? { q: text.trim() } : {} });
  };

  return (
    <section aria-labelledby="contributors-title">
      <h1 id="contributors-title">Contributors</h1>
      <form role="search" onSubmit={search} className="search">
        <label htmlFor="contributor-search">Find a contributor</label>
        <input id="contributor-search" type="search" placeholder="id or payout address" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      <PagedTable<ContributorRow>
        queryKey={queryKeys.contributors(q)}
        fetchPage={(cursor) => api.contributors(q, cursor)}
        loadingLabel="Loading contributors"
        errorTitle="Could not load contributors"
        fetchingMoreLabel="Loading…"
        caption={q ? `Contributors matching “${q}”` : 'Contributors'}
        rowKey={(c) => c.id}
        empty={q ? `No contributor id or payout address contains “${q}”.` : 'No contributors registered yet.'}
        columns={(rows) => [
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
    </section>
  );
}
