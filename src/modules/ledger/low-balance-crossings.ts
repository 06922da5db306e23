// user.balance_low: which user balances crossed below the threshold in one balance update. Pure.
// The balance is the user's balance_usd: purchased credit (the user's account) + what unexpired
// grants hold; the ledger passes the first alone only for users without unexpired grants, the
// grants service adds the grants for the others (PostOptions.lowBalance).
// A crossing is a move from at least the threshold to below it, so each one is seen exactly once:
// the balance row is locked while it changes, and it must climb back to the threshold (a top-up)
// before it can cross again. Only the deltas the ledger already applies are looked at: the hot
// path pays a comparison per billed user, nothing more.
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { WebhookEventInput } from '../webhooks/webhook-outbox.service.js';

export interface BalanceCrossing {
  userId: string;
  previousAtto: bigint;
  balanceAtto: bigint;
}

/** A change of a user's balance: what it moved by and the balance after. */
export interface LowBalanceChange {
  userId: string;
  deltaAtto: bigint;
  balanceAtto: bigint;
}

export function isCrossingBelow(input: { previousAtto: bigint; balanceAtto: bigint; thresholdAtto: bigint }): boolean {
  return input.previousAtto >= input.thresholdAtto && input.balanceAtto < input.thresholdAtto;
}

/** From each user account's delta and its balance after the update. */
export function lowBalanceCrossings(input: { changes: readonly LowBalanceChange[]; thresholdAtto: bigint }): BalanceCrossing[] {
  const crossings: BalanceCrossing[] = [];
  for (const change of input.changes) {
    const previousAtto = change.balanceAtto - change.deltaAtto;
    if (isCrossingBelow({ previousAtto, balanceAtto: change.balanceAtto, thresholdAtto: input.thresholdAtto })) {
      crossings.push({ userId: change.userId, previousAtto, balanceAtto: change.balanceAtto });
    }
  }
  return crossings;
}

export function lowBalanceEvents(crossings: readonly BalanceCrossing[], thresholdAtto: bigint, at: Date): WebhookEventInput[] {
  return crossings.map((c) => ({
    type: 'user.balance_low',
    data: { user_id: c.userId, balance_usd: formatAttoAsUsd(c.balanceAtto), previous_balance_usd: formatAttoAsUsd(c.previousAtto), threshold_usd: formatAttoAsUsd(thresholdAtto) },
    occurredAt: at,
  }));
}
