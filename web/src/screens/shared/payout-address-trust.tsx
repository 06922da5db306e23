import type { PayoutAddressTrust } from '../../api/wire';
import { formatTimestamp } from '../../lib/format';

/** The end of the cool-down while it lasts; null once the address is payable (or was never changed). */
export function coolingDownUntil(trust: Pick<PayoutAddressTrust, 'payout_address_payable_from'>, now: number): string | null {
  const until = trust.payout_address_payable_from;
  return until !== null && Date.parse(until) > now ? until : null;
}

/** Whether the payout address is proven, and when a changed address becomes payable (cool-down). */
export function PayoutAddressTrustNote({ trust, now = Date.now() }: { trust: PayoutAddressTrust; now?: number }) {
  const coolingUntil = coolingDownUntil(trust, now);
  return (
    <p data-payout-address-trust>
      {trust.payout_address_proven ? (
        <span className="badge good">address proven {trust.payout_address_proven_at ? formatTimestamp(trust.payout_address_proven_at) : ''}</span>
      ) : (
        <span className="badge warn">address not proven by its signature</span>
      )}{' '}
      {coolingUntil ? <span className="badge warn">new address: payable from {formatTimestamp(coolingUntil)}</span> : null}
    </p>
  );
}
