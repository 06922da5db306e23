import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { api, queryKeys } from '../../api/endpoints';
import { QueryView } from '../../components/states';
import { StatusBadge } from '../../components/status-badge';
import { formatTimestamp } from '../../lib/format';
import { BalanceStats } from '../shared/balances';
import { PayoutAddressProofForm } from '../shared/payout-address-proof';
import { PayoutAddressTrustNote } from '../shared/payout-address-trust';
import { EarningsPanel } from '../shared/earnings-panel';
import { PayoutsTable } from '../shared/payouts-table';
import { StatementsPanel } from '../shared/statements-panel';
import { ContributorEditForm, PortalKeyButton, StatusToggle } from './contributor-actions';

const route = getRouteApi('/contributors/$contributorId');

export function ContributorDetailScreen() {
  const { contributorId } = route.useParams();
  const contributor = useQuery({ queryKey: queryKeys.contributor(contributorId), queryFn: () => api.contributor(contributorId) });
  return (
    <section aria-labelledby="contributor-title">
      <p>
        <Link to="/contributors">← Contributors</Link>
      </p>
      <h1 id="contributor-title">Contributor {contributorId}</h1>
      <QueryView query={contributor} label="the contributor">
        {(c) => (
          <>
            <p>
              <StatusBadge status={c.status} /> {c.tier} tier · registered {formatTimestamp(c.created_at)}
              {c.flagged_reason && <span className="badge bad">flagged: {c.flagged_reason}</span>}
              {c.under_review_since && <span className="badge bad">under review since {formatTimestamp(c.under_review_since)}</span>} <StatusToggle contributor={c} />
            </p>
            <PayoutAddressTrustNote trust={c} />
            <BalanceStats balances={c.balances} label={`Balances of ${c.id}`} />
            <div className="two-columns">
              <section className="panel" aria-labelledby="edit-title">
                <h2 id="edit-title">Tier and payout address</h2>
                <ContributorEditForm key={`${c.tier}|${c.payout_address}`} contributor={c} />
              </section>
              <section className="panel" aria-labelledby="portal-title">
                <h2 id="portal-title">Contributor portal</h2>
                <p className="muted">A contributor key signs in to this console and sees only this contributor’s balance, earnings and payouts.</p>
                <PortalKeyButton contributorId={c.id} />
              </section>
            </div>
            <section className="panel" aria-labelledby="proof-title">
              <h2 id="proof-title">Prove the payout address</h2>
              <PayoutAddressProofForm contributorId={c.id} currentAddress={c.payout_address} />
            </section>
          </>
        )}
      </QueryView>
      <EarningsPanel contributorId={contributorId} title="Earnings by day" />
      <EarningsPanel contributorId={contributorId} initialGroupBy="model" title="Earnings by model" />
      <PayoutsTable contributorId={contributorId} />
      <StatementsPanel contributorId={contributorId} />
      <p>
        <Link to="/refunds" search={{ contributor_id: contributorId }}>Refunds and clawbacks of {contributorId}</Link>
      </p>
    </section>
  );
}
