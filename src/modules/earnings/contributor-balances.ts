// Pure: a contributor's balances from its three ledger accounts' stored balances.
import { assert } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';

export interface ContributorBalances {
  /** Earned, not matured yet (PAYOUT_MATURITY_DAYS). */
  pendingAtto: bigint;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
  /** Everything ever credited: pending + payable + in_settlement + paid, exactly. */
  accruedAtto: bigint;
}

export interface ContributorBalancesJson {
  accrued_usd: string;
  pending_usd: string;
  payable_usd: string;
  in_settlement_usd: string;
  paid_usd: string;
}

export function contributorBalancesOf(input: { pendingAtto?: bigint; payableAtto: bigint; inSettlementAtto: bigint; paidAtto: bigint }): ContributorBalances {
  const pendingAtto = input.pendingAtto ?? 0n;
  const accruedAtto = pendingAtto + input.payableAtto + input.inSettlementAtto + input.paidAtto;
  return { pendingAtto, payableAtto: input.payableAtto, inSettlementAtto: input.inSettlementAtto, paidAtto: input.paidAtto, accruedAtto };
}

/** The API view, asserting the identity on the way out (accrued is derived, never stored). */
export function contributorBalancesToJson(balances: ContributorBalances): ContributorBalancesJson {
  assert(
    balances.accruedAtto === balances.pendingAtto + balances.payableAtto + balances.inSettlementAtto + balances.paidAtto,
    'accrued == pending + payable + in_settlement + paid',
  );
  return {
    accrued_usd: formatAttoAsUsd(balances.accruedAtto),
    pending_usd: formatAttoAsUsd(balances.pendingAtto),
    payable_usd: formatAttoAsUsd(balances.payableAtto),
    in_settlement_usd: formatAttoAsUsd(balances.inSettlementAtto),
    paid_usd: formatAttoAsUsd(balances.paidAtto),
  };
}
