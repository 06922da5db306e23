// Pure: a contributor's balances from its three ledger accounts' stored balances.
import { assert } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';

export interface ContributorBalances {
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
  /** Everything ever credited: payable + in_settlement + paid, exactly. */
  accruedAtto: bigint;
}

export interface ContributorBalancesJson {
  accrued_usd: string;
  payable_usd: string;
  in_settlement_usd: string;
  paid_usd: string;
}

export function contributorBalancesOf(input: { payableAtto: bigint; inSettlementAtto: bigint; paidAtto: bigint }): ContributorBalances {
  const accruedAtto = input.payableAtto + input.inSettlementAtto + input.paidAtto;
  return { ...input, accruedAtto };
}

/** The API view, asserting the identity on the way out (accrued is derived, never stored). */
export function contributorBalancesToJson(balances: ContributorBalances): ContributorBalancesJson {
  assert(
    balances.accruedAtto === balances.payableAtto + balances.inSettlementAtto + balances.paidAtto,
    'accrued == payable + in_settlement + paid',
  );
  return {
    accrued_usd: formatAttoAsUsd(balances.accruedAtto),
    payable_usd: formatAttoAsUsd(balances.payableAtto),
    in_settlement_usd: formatAttoAsUsd(balances.inSettlementAtto),
    paid_usd: formatAttoAsUsd(balances.paidAtto),
  };
}
