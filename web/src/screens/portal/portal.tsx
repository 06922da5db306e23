import { useQuery } from '@tanstack/react-query';
import { api, queryKeys } from '../../api/endpoints';
import { usePrincipal } from '../../auth/auth';
import { QueryView } from '../../components/states';
import { BalanceStats } from '../shared/balances';
import { PayoutAddressProofForm } from '../shared/payout-address-proof';
import { PayoutAddressTrustNote } from '../shared/payout-address-trust';
import { EarningsPanel } from '../shared/earnings-panel';
import { PayoutsTable } from '../shared/payouts-table';
import { StatementsPanel } from '../shared/statements-panel';

/** A contributor key's own balance, earnings and payouts: it is bound to one contributor id. */
export function PortalScreen() {
  const principal = usePrincipal();
  const contributorId = principal.contributor_id!;
  const balance = useQuery({ queryKey: queryKeys.balance(contributorId), queryFn: () => api.balance(contributorId) });
  const address = useQuery({ queryKey: queryKeys.payoutAddress(contributorId), queryFn: () => api.payoutAddress(contributorId) });
  return (
    <section aria-labelledby="portal-title">
      <h1 id="portal-title">Earnings of {contributorId}</h1>
      <QueryView query={balance} label="your balance">
        {(b) => (
          <>
            <p className="muted">{b.tier} tier</p>
            <BalanceStats balances={b} label="Your balance" />
          </>
        )}
      </QueryView>
      <QueryView query={address} label="your payout address">
        {(a) => (
          <>
            <p>
              Payout address <code>{a.payout_address}</code>
            </p>
            <PayoutAddressTrustNote trust={a} />
            <section className="panel" aria-labelledby="proof-title">
              <h2 id="proof-title">Prove your payout address</h2>
              <PayoutAddressProofForm contributorId={contributorId} currentAddress={a.payout_address} />
            </section>
          </>
        )}
      </QueryView>
      <EarningsPanel contributorId={contributorId} />
      <PayoutsTable contributorId={contributorId} />
      <StatementsPanel contributorId={contributorId} />
    </section>
  );
}
