// API bodies of the users endpoints (money as decimal strings).
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { UserBalance } from './users.service.js';
import type { ListedUser } from './users.repository.js';

export function balanceBody(balance: UserBalance) {
  return {
    user_id: balance.userId,
    balance_usd: formatAttoAsUsd(balance.balanceAtto),
    held_usd: formatAttoAsUsd(balance.heldAtto),
    available_usd: formatAttoAsUsd(balance.availableAtto),
  };
}

export function listedUserBody(user: ListedUser) {
  return {
    ...balanceBody({ userId: user.userId, balanceAtto: user.balanceAtto, heldAtto: user.heldAtto, availableAtto: user.balanceAtto - user.heldAtto }),
    created_at: user.createdAt.toISOString(),
  };
}
