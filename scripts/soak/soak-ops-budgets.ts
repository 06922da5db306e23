// Budgets under racing holds (api.md "Spend controls"): a budget_holds op (re)sets a key's two
// budgets (one on the key, one on the key and a model; block or notify; a period), takes 2-4 holds
// naming the key at once, then captures each with an event naming the key and its model or
// releases it. Only these events name a key and these ops run alone, so the soak's own record
// knows a budget's spent exactly: the charges of the key's billed events that occurred in the
// period (refunds net). budget_never_passed_by_holds: the holds a block budget let through never
// take spent + their amounts past its limit; a notify budget never refuses a hold.
import { periodRange, type BudgetPeriod } from '../../src/modules/spend/budget-periods.js';
import { sleep } from '../lib/processes.js';
import { expectStatus } from './soak-ops-admin.js';
import { judgeIngest, occurredAt, recordEvent, usageBody, type SoakContext } from './soak-ops-context.js';
import { formatAtto, usdToAtto } from './soak-record.js';
import type { PlannedBudget, PlannedOp } from './soak-schedule.js';

/** How long a hold's release is retried through a fault: it must not stay active unknown. */
const RELEASE_RETRY_MS = 90_000;

type Op = Extract<PlannedOp, { op: 'budget_holds' }>;

const applies = (budget: PlannedBudget, model: string) => budget.model === null || budget.model === model;

/** The charges, net of refunds, of the key's billed events in the budget's scope and current period. */
function spentAtto(ctx: SoakContext, op: Op, budget: PlannedBudget, nowMs: number): bigint {
  const range = periodRange(budget.period as BudgetPeriod, new Date(nowMs));
  let spent = 0n;
  for (const e of ctx.record.events.values()) {
    if (e.keyId !== op.key_id || e.user_id !== op.user_id || !applies(budget, e.model)) continue;
    if (range.start && (e.occurredMs < range.start.getTime() || e.occurredMs >= range.end!.getTime())) continue;
    const charge = ctx.record.billedCharge.get(e.event_id);
    if (charge !== undefined) spent += charge - (ctx.record.refunded.get(e.event_id) ?? 0n);
  }
  return spent;
}

const periodKey = (budget: PlannedBudget, ms: number) => periodRange(budget.period as BudgetPeriod, new Date(ms)).start?.getTime() ?? 0;

export async function opBudgetHolds(ctx: SoakContext, op: Op): Promise<void> {
  for (const b of op.budgets) {
    const body = { limit_usd: b.limit_usd, period: b.period, key_id: op.key_id, action: b.action, ...(b.model ? { model: b.model } : {}), alert_at: ['0.5', '1'] };
    const answer = await ctx.http.request('PUT', `/v1/admin/users/${op.user_id}/budgets/${encodeURIComponent(b.budget_id)}`, { body });
    // Without a confirmed budget the soak does not know the limit the holds meet.
    if (!expectStatus(ctx, `budget ${b.budget_id}`, answer, [200, 201])) return;
  }
  const beforeMs = Date.now();
  const spentBefore = new Map(op.budgets.map((b) => [b.budget_id, spentAtto(ctx, op, b, beforeMs)]));
  const answers = await Promise.all(
    op.holds.map((h, i) =>
      ctx.http.request('POST', '/v1/holds', { api: i, body: { hold_id: h.hold_id, user_id: op.user_id, amount_usd: h.amount_usd, key_id: op.key_id, model: h.model, expires_in_seconds: 3600 } }),
    ),
  );
  const afterMs = Date.now();
  const taken = op.holds.filter((_, i) => answers[i]!.status === 201 || answers[i]!.status === 200);
  ctx.record.budgetHolds.taken += taken.length;
  for (const a of answers) if (a.status === 402) ctx.record.budgetHolds[a.json?.error?.code === 'budget_exceeded' ? 'budget_exceeded' : 'other'] += 1;
  for (const [i, a] of answers.entries()) {
    if (![200, 201, 402].includes(a.status)) expectStatus(ctx, `budget hold ${op.holds[i]!.hold_id}`, a, [201]);
    if (a.status !== 402) continue;
    const refusedBy = op.budgets.find((b) => b.budget_id === a.json?.error?.details?.budget_id);
    ctx.checked('budget_never_passed_by_holds');
    if (refusedBy?.action === 'notify') ctx.fail('budget_never_passed_by_holds', `hold ${op.holds[i]!.hold_id} refused by notify budget ${refusedBy.budget_id}`);
  }
  for (const b of op.budgets) {
    if (b.action !== 'block') continue;
    // A period that turned during the race: the service's and the soak's period may differ.
    if (periodKey(b, beforeMs) !== periodKey(b, afterMs)) continue;
    const held = taken.filter((h) => applies(b, h.model)).reduce((n, h) => n + usdToAtto(h.amount_usd), 0n);
    const spent = spentBefore.get(b.budget_id)!;
    ctx.checked('budget_never_passed_by_holds');
    if (held > 0n && spent + held > usdToAtto(b.limit_usd)) {
      ctx.fail('budget_never_passed_by_holds', `budget ${b.budget_id} (${b.period}, limit ${b.limit_usd}${b.model ? `, ${b.model}` : ''}): spent ${formatAtto(spent)} + holds let through ${formatAtto(held)} (${taken.filter((h) => applies(b, h.model)).map((h) => `${h.hold_id} ${h.amount_usd}`).join(', ')})`);
    }
  }
  // Each hold taken is captured by its event or released; none is left active unknown.
  await Promise.all(
    taken.map(async (h, i) => {
      if (h.capture) {
        const at = occurredAt(h.capture);
        const record = recordEvent(ctx, h.capture, 'hold', at, h.hold_id, op.key_id);
        const answer = await ctx.http.request('POST', '/v1/usage-events', { api: i, body: usageBody(h.capture, at, h.hold_id, op.key_id) });
        judgeIngest(ctx, record, answer.status, answer.json, answer.status === 200 || answer.status === 201 || answer.status === 202);
        if (record.state === 'accepted') {
          // The event captured its hold (api.md): a release now is 409, never 200.
          const release = await ctx.http.request('POST', `/v1/holds/${encodeURIComponent(h.hold_id)}/release`, { api: i + 1 });
          ctx.checked('holds_never_overspend');
          if (release.status === 200) ctx.fail('holds_never_overspend', `hold ${h.hold_id} was still active after its event ${h.capture.event_id} was accepted`);
          return;
        }
      }
      const deadline = Date.now() + RELEASE_RETRY_MS;
      for (;;) {
        const release = await ctx.http.request('POST', `/v1/holds/${encodeURIComponent(h.hold_id)}/release`, { api: i + 1 });
        // 409: captured meanwhile (an event whose answer was lost).
        if (release.status === 200 || release.status === 409) return;
        if (release.status !== 0 && release.status < 500) return void expectStatus(ctx, `release ${h.hold_id}`, release, [200, 409]);
        if (Date.now() > deadline) return;
        await sleep(1_000);
      }
    }),
  );
}
