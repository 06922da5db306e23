import { getRouteApi } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { ContributorRow } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { shortHash } from '../../lib/format';
import { StatusToggle } from './contributor-actions';
import { contributorColumn, moneyColumn, statusColumn } from '../../components/columns';

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
        queryKey={queryKeys.contributors(q)} fetchPage={(cursor) => api.contributors(q, cursor)} what="contributors" fetchingMoreLabel="Loading…"
        caption={q ? `Contributors matching “${q}”` : 'Contributors'} rowKey={(c) => c.id} empty={q ? `No contributor id or payout address contains “${q}”.` : 'No contributors registered yet.'}
        columns={(rows) => [
          contributorColumn((c: ContributorRow) => c.id),
          { header: 'Tier', cell: (c) => c.tier },
          statusColumn((c) => c.status),
          { header: 'Payout address', cell: (c) => <code title={c.payout_address}>{shortHash(c.payout_address)}</code> },
          ...(rows.some((c) => c.balances.pending_usd !== undefined)
            ? [moneyColumn('Pending', (c: ContributorRow) => c.balances.pending_usd)]
            : []),
          moneyColumn('Payable', (c) => c.balances.payable_usd),
          moneyColumn('In settlement', (c) => c.balances.in_settlement_usd),
          moneyColumn('Paid', (c) => c.balances.paid_usd),
          moneyColumn('Accrued', (c) => c.balances.accrued_usd),
          { header: 'Actions', cell: (c) => <StatusToggle contributor={c} /> },
        ]}
      />
    </section>
  );
}
