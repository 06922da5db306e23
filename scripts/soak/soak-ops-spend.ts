// Auto top-up and balance thresholds (api.md "Spend controls"; docs/spend-controls.md): the soak
// sets a user's auto top-up or balance thresholds relative to the user's available balance when
// the op runs (users hold a large seed credit, so thresholds planned as absolute amounts would never
// be crossed), and answers the user.topup_requested webhooks its healthy receiver got as an
// operator's payment system does: a credit with the request id as reference, a failed charge, or
// no answer yet. The invariants (soak-invariants-spend.ts) then hold the service's requests and
// alerts to once per crossing and the month's max.
import { expectStatus } from './soak-ops-admin.js';
import type { SoakContext } from './soak-ops-context.js';
import { formatAtto, usdToAtto, type SpendSetting } from './soak-record.js';
import type { PlannedOp } from './soak-schedule.js';

const TOPUP_FAILURE_REASON = 'soak: card declined';

/** The user's available balance now (null: no answer; the op then sends nothing). */
async function availableAtto(ctx: SoakContext, userId: string): Promise<bigint | null> {
  const balance = await ctx.http.request('GET', `/v1/users/${userId}/balance`);
  return balance.status === 200 ? usdToAtto(balance.json.available_usd as string) : null;
}

const atLeastZero = (atto: bigint) => (atto < 0n ? 0n : atto);

/** Sends a PUT of spend settings, recorded before it is sent (it may apply even if its answer is lost). */
async function putSetting(ctx: SoakContext, what: string, path: string, body: unknown, setting: Omit<SpendSetting, 'sentMs' | 'doneMs' | 'applied'>): Promise<void> {
  const recorded: SpendSetting = { ...setting, sentMs: Date.now(), doneMs: Number.POSITIVE_INFINITY, applied: true };
  ctx.record.spendSettings.push(recorded);
  const answer = await ctx.http.request('PUT', path, { body });
  if (answer.status !== 0 && answer.status < 500) recorded.doneMs = Date.now();
  if (!expectStatus(ctx, what, answer, [200, 201]) && answer.status !== 0 && answer.status < 500) recorded.applied = false;
}

export async function opAutoTopup(ctx: SoakContext, op: Extract<PlannedOp, { op: 'auto_topup' }>): Promise<void> {
  const available = await availableAtto(ctx, op.user_id);
  if (available === null) return;
  const belowAtto = atLeastZero(available + usdToAtto(op.below_offset_usd));
  const topup = { belowAtto, amountAtto: usdToAtto(op.amount_usd), maxPerMonthAtto: usdToAtto(op.max_per_month_usd), enabled: op.enabled };
  const body = { below_usd: formatAtto(belowAtto), amount_usd: op.amount_usd, max_per_month_usd: op.max_per_month_usd, enabled: op.enabled };
  await putSetting(ctx, `auto top-up of ${op.user_id}`, `/v1/admin/users/${op.user_id}/auto-topup`, body, { userId: op.user_id, topup, thresholdsAtto: null });
}

export async function opBalanceAlerts(ctx: SoakContext, op: Extract<PlannedOp, { op: 'balance_alerts' }>): Promise<void> {
  const available = await availableAtto(ctx, op.user_id);
  if (available === null) return;
  // Distinct and positive (the service refuses repeated thresholds).
  const thresholdsAtto = [...new Set(op.offsets_usd.map((o) => atLeastZero(available + usdToAtto(o))))].filter((t) => t > 0n);
  const body = { balance_below_usd: thresholdsAtto.map(formatAtto) };
  await putSetting(ctx, `balance thresholds of ${op.user_id}`, `/v1/admin/users/${op.user_id}/alerts`, body, { userId: op.user_id, topup: null, thresholdsAtto });
}

/** The oldest requests the healthy receiver got and the soak has not answered, one answer each. */
export async function opTopupAnswer(ctx: SoakContext, op: Extract<PlannedOp, { op: 'topup_answer' }>): Promise<void> {
  const pending = [...ctx.stack.webhooks.topupRequests.healthy.values()].filter((r) => !ctx.record.answeredTopups.has(r.request_id));
  for (const [i, answer] of op.answers.entries()) {
    const request = pending[i];
    if (!request || answer === 'leave') continue;
    if (answer === 'credit') {
      // The payment system charged the customer: the credit's reference is the request id.
      const credit = await ctx.http.request('POST', `/v1/admin/users/${request.user_id}/credits`, { body: { amount_usd: request.amount_usd, reference: request.request_id } });
      if (!expectStatus(ctx, `top-up credit ${request.request_id}`, credit, [200, 201])) continue;
      ctx.record.answeredTopups.set(request.request_id, 'credit');
      ctx.record.confirmedCredits.set(request.request_id, { user_id: request.user_id, amount_usd: request.amount_usd });
      ctx.record.addCredit(request.user_id, usdToAtto(request.amount_usd));
    } else {
      const failed = await ctx.http.request('POST', `/v1/admin/users/${request.user_id}/auto-topup/requests/${encodeURIComponent(request.request_id)}/fail`, { body: { reason: TOPUP_FAILURE_REASON } });
      if (expectStatus(ctx, `top-up failure ${request.request_id}`, failed, [200])) ctx.record.answeredTopups.set(request.request_id, 'fail');
    }
  }
}
