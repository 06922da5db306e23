import type { PayoutAddressTrust } from '../../api/types';
import { formatTimestamp } from '../../lib/format';

/** Whether the payout address is proven, and when a changed address becomes payable (cool-down). */
export function PayoutAddressTrustNote({ trust, now = Date.now() }: { trust: PayoutAddressTrust; now?: number }) {
  const coolingUntil = trust.payout_address_payable_from !== null && Date.parse(trust.payout_address_payable_from) > now ? trust.payout_address_payable_from : null;
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
