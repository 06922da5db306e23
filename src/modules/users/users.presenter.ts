// API bodies of the users endpoints (money as decimal strings).
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { UserBalance } from './users.service.js';

export function balanceBody(balance: UserBalance) {
  return {
    user_id: balance.userId,
    balance_usd: formatAttoAsUsd(balance.balanceAtto),
    held_usd: formatAttoAsUsd(balance.heldAtto),
    available_usd: formatAttoAsUsd(balance.availableAtto),
  };
}
