// API body of a reconciliation resolution (POST /v1/admin/settlements/:id/reconciliation/resolve).
import type { ReconciliationResolutionRecord } from './payout/reconciliation-resolution.repository.js';

export function reconciliationResolutionBody(r: ReconciliationResolutionRecord) {
  return {
    resolution_id: r.id,
    settlement_id: r.settlementId,
    reason: r.reason,
    resolved_by: r.resolvedBy,
    resolved_at: r.createdAt.toISOString(),
    /** The findings accepted, as they were stored (the settlement's reconciliation is unchanged). */
    reconciliation: r.reconciliation,
  };
}
