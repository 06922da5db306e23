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
    granted_usd: formatAttoAsUsd(balance.grantedAtto),
    // Expired grants stay listed with remaining_usd 0.
    grants: balance.grants.map((g) => ({
      grant_id: g.grantId,
      name: g.name,
      amount_usd: formatAttoAsUsd(g.amountAtto),
      remaining_usd: formatAttoAsUsd(g.usableAtto),
      expires_at: g.expiresAt.toISOString(),
    })),
  };
}

export function listedUserBody(user: ListedUser) {
  const balanceAtto = user.balanceAtto + user.grantedAtto;
  return {
    user_id: user.userId,
    balance_usd: formatAttoAsUsd(balanceAtto),
    held_usd: formatAttoAsUsd(user.heldAtto),
    available_usd: formatAttoAsUsd(balanceAtto - user.heldAtto),
    granted_usd: formatAttoAsUsd(user.grantedAtto),
    created_at: user.createdAt.toISOString(),
  };
}
