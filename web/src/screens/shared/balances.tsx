import type { Balances } from '../../api/wire';
import { Money } from '../../components/money';
import { Stat, StatGrid } from '../../components/stat';

/** accrued = pending + payable + in settlement + paid; payable below zero is a debt (clawbacks). */
export function BalanceStats({ balances, label }: { balances: Balances; label: string }) {
  return (
    <StatGrid label={label}>
      {balances.pending_usd !== undefined && (
        <Stat label="Pending (maturing)" name="pending_usd">
          <Money value={balances.pending_usd} />
        </Stat>
      )}
      <Stat label="Payable" name="payable_usd" hint={balances.payable_usd.startsWith('-') ? 'A debt: netted against later earnings' : undefined}>
        <Money value={balances.payable_usd} />
      </Stat>
      <Stat label="In settlement" name="in_settlement_usd">
        <Money value={balances.in_settlement_usd} />
      </Stat>
      <Stat label="Paid" name="paid_usd">
        <Money value={balances.paid_usd} />
      </Stat>
      <Stat label="Earned in total" name="accrued_usd">
        <Money value={balances.accrued_usd} />
      </Stat>
    </StatGrid>
  );
}
