// Spend-control webhooks delivered to a real receiver on loopback by the real worker (which also
// proves the spend sweep has its handler): budget thresholds once per threshold and period,
// balance thresholds once per crossing, auto top-up requests once per crossing within the
// monthly max, and switched off after 3 failed charges in a row.
import { BalanceWatchService } from '../../src/modules/spend/balance-watch.service.js';
import { BudgetsService } from '../../src/modules/spend/budgets.service.js';
import { SpendClock } from '../../src/modules/spend/spend-clock.js';
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventType } from '../../src/modules/webhooks/webhook-event-types.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { waitFor } from '../support/test-worker.js';
import { startWebhookHarness, type WebhookHarness } from '../webhooks/support/webhook-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from '../webhooks/support/webhook-receiver.js';

let h: WebhookHarness;
let receiver: WebhookReceiver;
const TYPES: WebhookEventType[] = ['user.budget_threshold_crossed', 'user.balance_threshold_crossed', 'user.topup_requested', 'user.topup_disabled'];

const received = (type: WebhookEventType, userId: string) =>
  receiver.verifiedOf(type).filter((e) => {
    expect(WEBHOOK_EVENT_SCHEMAS[type].safeParse(e.body.data).success).toBe(true);
    return e.body.data.user_id === userId;
  });
/** Waits until `count` of the type arrived for the user, then a little more, so an extra one would show. */
async function expectReceived(type: WebhookEventType, userId: string, count: number) {
  await waitFor(async () => received(type, userId).length >= count);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const list = received(type, userId);
  expect(list).toHaveLength(count);
  return list.map((e) => e.body.data as Record<string, unknown>);
}

const sweep = async () => {
  await h.t.app.get(BudgetsService).sweepAlerts();
  await h.t.app.get(BalanceWatchService).sweep();
};
const hold = (id: string, userId: string, amount: string) => h.t.admin(h.t.http.post('/v1/holds')).send({ hold_id: id, user_id: userId, amount_usd: amount }).expect(201);
const release = (id: string) => h.t.admin(h.t.http.post(`/v1/holds/${id}/release`)).expect(200);
const credit = (userId: string, amount: string, reference: string) => h.t.admin(h.t.http.post(`/v1/admin/users/${userId}/credits`)).send({ amount_usd: amount, reference }).expect(201);

beforeAll(async () => {
  h = await startWebhookHarness('spend_alerts');
  await seedBilling(h.t);
  receiver = await startWebhookReceiver();
  const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: receiver.url, events: TYPES }).expect(201);
  receiver.secret = res.body.secret;
  await h.startWorker();
});
afterAll(async () => {
  h?.t.app.get(SpendClock).standAt(null);
  await h?.close();
  await receiver?.close();
});
afterEach(async () => {
  await expectLedgerClean(h.t);
});

describe('spend-control webhooks', () => {
  it('user.budget_threshold_crossed: once per threshold and period', async () => {
    await credit('u_bt', '10', 'bt-seed');
    await h.t.admin(h.t.http.put('/v1/admin/users/u_bt/budgets/all')).send({ limit_usd: '0.01', period: 'total', action: 'notify', alert_at: ['0.5', '1'] }).expect(201);
    await h.t.admin(h.t.http.put('/v1/admin/users/u_bt/budgets/daily')).send({ limit_usd: '0.01', period: 'day', action: 'notify', alert_at: ['0.5'] }).expect(201);
    const occurredAt = new Date().toISOString();
    await h.t.admin(h.t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'bt-1', user_id: 'u_bt', occurred_at: occurredAt })).expect(201);
    await sweep();
    await sweep();
    await h.t.admin(h.t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'bt-2', user_id: 'u_bt', occurred_at: occurredAt })).expect(201);
    await sweep();
    const alerts = await expectReceived('user.budget_threshold_crossed', 'u_bt', 3);
    expect(alerts.map((a) => `${a.budget_id}@${a.threshold}`).sort()).toEqual(['all@0.5', 'all@1', 'daily@0.5']);
    expect(alerts.find((a) => a.budget_id === 'all' && a.threshold === '1')).toMatchObject({ spent_usd: '0.01625', limit_usd: '0.01', period_start: null });
    // The next day is a new period of the daily budget: its threshold is announced again (it has spent nothing there yet).
    h.t.app.get(SpendClock).standAt(new Date(Date.now() + 24 * 3600 * 1000));
    await sweep();
    h.t.app.get(SpendClock).standAt(null);
    await expectReceived('user.budget_threshold_crossed', 'u_bt', 3);
  });

  it('user.balance_threshold_crossed: once per crossing below each threshold, again after climbing back', async () => {
    await credit('u_bal', '20', 'bal-seed');
    const put = await h.t.admin(h.t.http.put('/v1/admin/users/u_bal/alerts')).send({ balance_below_usd: ['10', '5'] }).expect(200);
    expect(put.body).toEqual({ user_id: 'u_bal', balance_below_usd: ['10', '5'], armed: [true, true] });
    await h.t.admin(h.t.http.put('/v1/admin/users/u_bal/alerts')).send({ balance_below_usd: [5] }).expect(400);
    await hold('bal-1', 'u_bal', '12'); // available 8: below 10
    await sweep();
    await sweep();
    await hold('bal-2', 'u_bal', '4'); // available 4: below 5
    await sweep();
    await release('bal-1');
    await release('bal-2');
    await sweep(); // available 20: both armed again
    await hold('bal-3', 'u_bal', '11'); // available 9: below 10 again
    await sweep();
    const crossings = await expectReceived('user.balance_threshold_crossed', 'u_bal', 3);
    expect(crossings.map((c) => [c.threshold_usd, c.available_usd])).toEqual([['10', '8'], ['5', '4'], ['10', '9']]);
    await release('bal-3');
    await sweep(); // available 20: armed again
    // A negative adjustment is seen at once, in the credit's own transaction.
    await h.t.admin(h.t.http.post('/v1/admin/users/u_bal/credits')).send({ amount_usd: '-16', reference: 'bal-adj', reason: 'test' }).expect(201);
    await expectReceived('user.balance_threshold_crossed', 'u_bal', 5);
  });

  it('user.topup_requested: once per crossing, never past max_per_month_usd; the credit with its request_id arms it again', async () => {
    await credit('u_top', '10', 'top-seed');
    const put = await h.t.admin(h.t.http.put('/v1/admin/users/u_top/auto-topup')).send({ below_usd: '5', amount_usd: '20', max_per_month_usd: '50' }).expect(201);
    expect(put.body).toMatchObject({ enabled: true, armed: true, failures_in_row: 0, requested_this_month_usd: '0' });
    await h.t.admin(h.t.http.put('/v1/admin/users/u_top/auto-topup')).send({ below_usd: '5', amount_usd: '0', max_per_month_usd: '50' }).expect(400);
    await hold('top-1', 'u_top', '6'); // available 4
    await sweep();
    await sweep();
    const [first] = await expectReceived('user.topup_requested', 'u_top', 1);
    expect(first).toMatchObject({ amount_usd: '20' });
    await credit('u_top', '20', first!.request_id as string); // available 24: armed again
    await h.t.admin(h.t.http.post(`/v1/admin/users/u_top/credits`)).send({ amount_usd: '20', reference: first!.request_id }).expect(200);
    await hold('top-2', 'u_top', '20'); // available 4
    await sweep();
    const second = (await expectReceived('user.topup_requested', 'u_top', 2))[1]!;
    await credit('u_top', '20', second.request_id as string);
    await hold('top-3', 'u_top', '20'); // available 4 again, but 40 + 20 > 50 this month
    await sweep();
    await expectReceived('user.topup_requested', 'u_top', 2);
    expect((await h.t.admin(h.t.http.get('/v1/users/u_top/auto-topup')).expect(200)).body).toMatchObject({ requested_this_month_usd: '40', armed: true });
    // Next month the same crossing may ask again.
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
    h.t.app.get(SpendClock).standAt(nextMonth);
    await sweep();
    h.t.app.get(SpendClock).standAt(null);
    await expectReceived('user.topup_requested', 'u_top', 3);
    for (const id of ['top-1', 'top-2', 'top-3']) await release(id);
  });

  it('switches auto top-up off after 3 failed charges in a row, with user.topup_disabled', async () => {
    await credit('u_fail', '10', 'fail-seed');
    await h.t.admin(h.t.http.put('/v1/admin/users/u_fail/auto-topup')).send({ below_usd: '5', amount_usd: '10', max_per_month_usd: '1000' }).expect(201);
    for (let round = 1; round <= 3; round += 1) {
      await hold(`fail-${round}`, 'u_fail', '6');
      await sweep();
      const request = (await expectReceived('user.topup_requested', 'u_fail', round))[round - 1]!;
      const failed = await h.t.admin(h.t.http.post(`/v1/admin/users/u_fail/auto-topup/requests/${request.request_id}/fail`)).send({ reason: 'card declined' }).expect(200);
      expect(failed.body).toMatchObject({ failures_in_row: round, enabled: round < 3 });
      // The same failure again changes nothing.
      await h.t.admin(h.t.http.post(`/v1/admin/users/u_fail/auto-topup/requests/${request.request_id}/fail`)).send({ reason: 'card declined' }).expect(200);
      await release(`fail-${round}`);
      await sweep(); // back above: armed again
    }
    const [disabled] = await expectReceived('user.topup_disabled', 'u_fail', 1);
    expect(disabled).toEqual({ user_id: 'u_fail', failures: 3, reason: 'card declined' });
    await hold('fail-4', 'u_fail', '6');
    await sweep();
    await expectReceived('user.topup_requested', 'u_fail', 3);
    await h.t.admin(h.t.http.post('/v1/admin/users/u_fail/auto-topup/requests/nope/fail')).send({ reason: 'x' }).expect(404);
    await release('fail-4');
  });
});
