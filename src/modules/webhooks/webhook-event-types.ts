// Every webhook event type of api.md, with the schema of its `data` and an example. One place: the
// emitters validate against it, GET /v1/admin/webhooks/event-types serves it as JSON Schema, and
// docs/webhooks.md is checked against it (webhook-event-types.spec.ts).
import { z } from 'zod';

const usd = z.string().regex(/^-?\d+(\.\d+)?$/).describe('decimal string in USD');
const usdc = z.string().regex(/^\d+(\.\d{1,6})?$/).describe('decimal string in USDC (at most 6 decimals)');
const timestamp = z.string().describe('RFC 3339 UTC');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

const settlementStatus = z.enum(['pending_approval', 'queued', 'submitting', 'confirmed', 'partially_failed', 'failed']);
const lineStatus = z.enum(['queued', 'submitted', 'paid', 'failed']);

/**
 * A settlement event. Admin endpoints get the totals; a contributor's endpoint gets a copy with
 * only its own `line` (and no totals: other contributors' amounts are not its business).
 */
const settlementData = z
  .object({
    settlement_id: z.string().uuid(),
    status: settlementStatus,
    trigger: z.enum(['admin', 'schedule']).optional(),
    payout_count: z.number().int().nonnegative().optional(),
    total_usdc: usdc.optional(),
    paid_count: z.number().int().nonnegative().optional(),
    failed_count: z.number().int().nonnegative().optional(),
    line: z
      .object({ payout_id: z.string().uuid(), contributor_id: z.string(), payout_address: address, amount_usdc: usdc, status: lineStatus })
      .optional(),
  })
  .strict();

const payoutData = z
  .object({
    payout_id: z.string().uuid().describe('the settlement line id (as in GET /v1/contributors/:id/payouts)'),
    settlement_id: z.string().uuid(),
    contributor_id: z.string(),
    payout_address: address,
    amount_usdc: usdc,
    tx_hash: z.string().nullable(),
    reason: z.string().nullable().describe('why it failed or was reorganised out; null when paid'),
  })
  .strict();

export const WEBHOOK_EVENT_SCHEMAS = {
  'settlement.created': settlementData,
  'settlement.pending_approval': settlementData,
  'settlement.confirmed': settlementData,
  'settlement.partially_failed': settlementData,
  'settlement.failed': settlementData,
  'payout.paid': payoutData,
  'payout.failed': payoutData,
  'payout.reorged': payoutData,
  'hold.expired': z.object({ hold_id: z.string(), user_id: z.string(), amount_usd: usd, expires_at: timestamp }).strict(),
  'user.balance_low': z
    .object({ user_id: z.string(), balance_usd: usd, previous_balance_usd: usd, threshold_usd: usd })
    .strict()
    .describe("the user's balance (balance_usd: purchased credit + unexpired grants' remainders) went from at least the threshold to below it (once per crossing); both balances include grants"),
  'user.budget_threshold_crossed': z
    .object({ user_id: z.string(), budget_id: z.string(), threshold: z.string().describe('fraction of the limit, as set in alert_at'), spent_usd: usd, limit_usd: usd, period_start: timestamp.nullable().describe('null for a total budget') })
    .strict()
    .describe("a budget's spent reached one of its alert_at thresholds (once per threshold and period)"),
  'user.balance_threshold_crossed': z
    .object({ user_id: z.string(), threshold_usd: usd, available_usd: usd })
    .strict()
    .describe("the available balance fell below one of the user's balance_below_usd thresholds (once per crossing)"),
  'user.topup_requested': z
    .object({ user_id: z.string(), request_id: z.string().describe('the reference to credit the top-up with'), amount_usd: usd })
    .strict()
    .describe('auto top-up: the available balance fell below below_usd; charge the customer and credit with reference = request_id'),
  'user.topup_disabled': z
    .object({ user_id: z.string(), failures: z.number().int().nonnegative(), reason: z.string() })
    .strict()
    .describe('auto top-up switched off after failed charges in a row'),
  'usage.unpriced': z
    .object({ model: z.string(), hour: timestamp.describe('start of the UTC hour'), event_id: z.string(), occurred_at: timestamp })
    .strict()
    .describe('the first event of this model stored unpriced in this hour'),
  'refund.created': z
    .object({
      refund_id: z.string(),
      event_id: z.string(),
      user_id: z.string(),
      contributor_id: z.string(),
      amount_usd: usd,
      contributor_clawback_usd: usd,
      margin_reversed_usd: usd,
      refunded_total_usd: usd,
      reason: z.string(),
    })
    .strict(),
  'ledger.check_failed': z
    .object({
      checked_at: timestamp,
      postings_sum_usd: usd,
      unbalanced_entries: z.number().int().nonnegative(),
      mismatched_accounts: z.number().int().nonnegative(),
      held_mismatches: z.number().int().nonnegative(),
      failed_checks: z.array(z.string()).describe('the checks that failed: ledger, and extensions such as rollups or settlement'),
    })
    .strict(),
  'contributor.payout_address_changed': z
    .object({
      contributor_id: z.string(),
      old_address: address,
      new_address: address,
      proven: z.boolean().describe('whether the new address was proven by its own signature'),
      payable_from: timestamp.describe('when the cool-down ends (PAYOUT_ADDRESS_COOLDOWN_HOURS after the change)'),
    })
    .strict()
    .describe('a payout address changed (not its first setting): to admin endpoints and the contributor\'s own'),
  'contributor.usage_anomaly': z
    .object({
      contributor_id: z.string(),
      model: z.string(),
      median_ratio: z.string().describe('median of the flagging ratio (`ratio`; completion: reported / counted completion tokens), a decimal string'),
      model_median_ratio: z.string().describe("the model's other contributors' median of that ratio"),
      events: z.number().int().nonnegative(),
      ratio: z.enum(['completion', 'prompt', 'reasoning']).optional().describe('which ratio the medians are of: the first that flags (prompt: reported / the gateway\'s prompt tokens; reasoning: hidden reasoning / counted output tokens)'),
      flagged_ratios: z.array(z.enum(['completion', 'prompt', 'reasoning'])).optional().describe('every ratio that flags the contributor'),
    })
    .strict()
    .describe('the usage audit flagged a contributor whose reported completion, prompt or reasoning tokens run above its model\'s'),
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_SCHEMAS;
export type WebhookEventData<T extends WebhookEventType> = z.output<(typeof WEBHOOK_EVENT_SCHEMAS)[T]>;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENT_SCHEMAS) as WebhookEventType[];

/** The only types a contributor key may subscribe to (api.md): its payouts, settlements and address changes. */
export function contributorMaySubscribe(type: WebhookEventType): boolean {
  return type.startsWith('payout.') || type.startsWith('settlement.') || type === 'contributor.payout_address_changed';
}

const SETTLEMENT_ID = '5b0c3c1e-2f7a-4d52-9a43-0d8c2b6f1a10';
const LINE_ID = '9e1d7f3a-6b2c-4e8f-a1d5-3c7b9e2f4a60';
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** One example `data` per type (docs/webhooks.md shows these). */
export const WEBHOOK_EVENT_EXAMPLES: { [T in WebhookEventType]: WebhookEventData<T> } = {
  'settlement.created': { settlement_id: SETTLEMENT_ID, status: 'queued', trigger: 'schedule', payout_count: 2, total_usdc: '125.5' },
  'settlement.pending_approval': { settlement_id: SETTLEMENT_ID, status: 'pending_approval', trigger: 'admin', payout_count: 40, total_usdc: '18250' },
  'settlement.confirmed': { settlement_id: SETTLEMENT_ID, status: 'confirmed', payout_count: 2, total_usdc: '125.5', paid_count: 2, failed_count: 0 },
  'settlement.partially_failed': {
    settlement_id: SETTLEMENT_ID,
    status: 'partially_failed',
    line: { payout_id: LINE_ID, contributor_id: 'c_7', payout_address: ADDRESS, amount_usdc: '12.5', status: 'failed' },
  },
  'settlement.failed': { settlement_id: SETTLEMENT_ID, status: 'failed', payout_count: 1, total_usdc: '12.5', paid_count: 0, failed_count: 1 },
  'payout.paid': { payout_id: LINE_ID, settlement_id: SETTLEMENT_ID, contributor_id: 'c_7', payout_address: ADDRESS, amount_usdc: '12.5', tx_hash: `0x${'ab'.repeat(32)}`, reason: null },
  'payout.failed': { payout_id: LINE_ID, settlement_id: SETTLEMENT_ID, contributor_id: 'c_7', payout_address: ADDRESS, amount_usdc: '12.5', tx_hash: null, reason: 'contributor_suspended' },
  'payout.reorged': { payout_id: LINE_ID, settlement_id: SETTLEMENT_ID, contributor_id: 'c_7', payout_address: ADDRESS, amount_usdc: '12.5', tx_hash: `0x${'cd'.repeat(32)}`, reason: 'reorged_out' },
  'hold.expired': { hold_id: 'h_1', user_id: 'u_42', amount_usd: '2.5', expires_at: '2026-12-01T10:15:00.000Z' },
  'user.balance_low': { user_id: 'u_42', balance_usd: '0.98', previous_balance_usd: '1.0031', threshold_usd: '1' },
  'user.budget_threshold_crossed': { user_id: 'u_42', budget_id: 'daily', threshold: '0.8', spent_usd: '8.02', limit_usd: '10', period_start: '2026-12-01T00:00:00.000Z' },
  'user.balance_threshold_crossed': { user_id: 'u_42', threshold_usd: '10', available_usd: '9.97' },
  'user.topup_requested': { user_id: 'u_42', request_id: 'topup_u_42_2026-12_1', amount_usd: '50' },
  'user.topup_disabled': { user_id: 'u_42', failures: 3, reason: 'card declined' },
  'usage.unpriced': { model: 'acme/new-model', hour: '2026-12-01T10:00:00.000Z', event_id: 'gw1-req-981', occurred_at: '2026-12-01T10:04:12.000Z' },
  'refund.created': {
    refund_id: 'rf_1',
    event_id: 'gw1-req-123',
    user_id: 'u_42',
    contributor_id: 'c_7',
    amount_usd: '0.0065',
    contributor_clawback_usd: '0.0055',
    margin_reversed_usd: '0.001',
    refunded_total_usd: '0.0065',
    reason: 'customer complaint',
  },
  'contributor.payout_address_changed': {
    contributor_id: 'c_7',
    old_address: ADDRESS,
    new_address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    proven: true,
    payable_from: '2026-12-02T10:00:00.000Z',
  },
  'contributor.usage_anomaly': { contributor_id: 'c_7', model: 'openai/gpt-4o', median_ratio: '1.2', model_median_ratio: '1.01', events: 64, ratio: 'completion', flagged_ratios: ['completion'] },
  'ledger.check_failed': { checked_at: '2026-12-01T10:00:00.000Z', postings_sum_usd: '0', unbalanced_entries: 0, mismatched_accounts: 1, held_mismatches: 0, failed_checks: ['ledger'] },
};

/** Each type's data as a JSON Schema (draft 2020-12), for the event-types endpoint and the docs. */
export function webhookEventJsonSchemas(): Array<{ type: WebhookEventType; schema: unknown; example: unknown }> {
  return WEBHOOK_EVENT_TYPES.map((type) => ({
    type,
    schema: z.toJSONSchema(WEBHOOK_EVENT_SCHEMAS[type]),
    example: { type, timestamp: '2026-12-01T10:00:00.000Z', data: WEBHOOK_EVENT_EXAMPLES[type] },
  }));
}
