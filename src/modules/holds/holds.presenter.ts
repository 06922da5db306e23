// API body of a hold (money as decimal strings).
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { HoldRecord } from './holds.repository.js';

export function holdBody(hold: HoldRecord) {
  return {
    hold_id: hold.holdId,
    user_id: hold.userId,
    status: hold.status,
    amount_usd: formatAttoAsUsd(hold.amountAtto),
    key_id: hold.keyId,
    model: hold.model,
    expires_at: hold.expiresAt.toISOString(),
    captured_event_id: hold.capturedEventId,
    captured_usd: hold.capturedAtto === null ? null : formatAttoAsUsd(hold.capturedAtto),
    created_at: hold.createdAt.toISOString(),
  };
}
