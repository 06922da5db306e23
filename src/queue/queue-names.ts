// Queue and job names (the catalogue of jobs, with payloads and options, is jobs.ts).
export const QUEUE_USAGE_EVENTS = 'usage-events';
export const QUEUE_USAGE_EVENTS_DEAD = 'usage-events-dead';
export const QUEUE_HOLDS = 'holds';
export const QUEUE_SETTLEMENT = 'settlement';
export type QueueName =
  | typeof QUEUE_USAGE_EVENTS
  | typeof QUEUE_USAGE_EVENTS_DEAD
  | typeof QUEUE_HOLDS
  | typeof QUEUE_SETTLEMENT
  | WebhookQueueName
  | typeof QUEUE_HISTORY
  | typeof QUEUE_EARNINGS
  | typeof QUEUE_USAGE_AUDIT
  | typeof QUEUE_LITELLM
  | typeof QUEUE_SPEND;

export const JOB_USAGE_EVENT = 'usage-event';
export const JOB_DEAD_USAGE_EVENT = 'dead-usage-event';
export const JOB_EXPIRE_HOLDS = 'expire-holds';
export const JOB_SETTLEMENT_RUN = 'settlement-run';
export const JOB_SETTLEMENT_SEND = 'settlement-send';
export const JOB_SETTLEMENT_RECONCILE = 'settlement-reconcile';
export const JOB_SETTLEMENT_FINALITY = 'settlement-finality';

/** Payout maturity (PAYOUT_MATURITY_DAYS): matured earnings move from pending to payable. */
export const QUEUE_EARNINGS = 'earnings';
export const JOB_EARNINGS_MATURE = 'earnings-mature';

/** Webhooks: the relay (outbox -> deliveries, on a schedule) and one dispatch job per endpoint. */
export const QUEUE_WEBHOOKS = 'webhooks';
export const QUEUE_WEBHOOK_DISPATCH = 'webhook-dispatch';
export type WebhookQueueName = typeof QUEUE_WEBHOOKS | typeof QUEUE_WEBHOOK_DISPATCH;
export const JOB_WEBHOOK_RELAY = 'webhook-relay';
export const JOB_WEBHOOK_DISPATCH = 'webhook-dispatch';

/** History at scale (docs/history.md): monthly partitions created ahead, ledger checkpoints. */
export const QUEUE_HISTORY = 'history';
export const JOB_USAGE_PARTITIONS = 'usage-partitions';
export const JOB_LEDGER_CHECKPOINT = 'ledger-checkpoint';
export const JOB_LEDGER_FULL_PROOF = 'ledger-full-proof';
/** Moves usage_user_key_daily (the summary by user or key) to the usage_events frontier. */
export const JOB_USAGE_USER_ROLLUP = 'usage-user-rollup';

/** The usage audit (api.md "Contributor trust"): streams' content counted off the request path, and the periodic verdict. */
export const QUEUE_USAGE_AUDIT = 'usage-audit';
export const JOB_USAGE_AUDIT_COUNT = 'usage-audit-count';
export const JOB_USAGE_AUDIT_RUN = 'usage-audit-run';
/** LiteLLM pull (api.md "Integrations"): the spend-log backfill from LITELLM_DATABASE_URL. */
export const QUEUE_LITELLM = 'litellm';
export const JOB_LITELLM_BACKFILL = 'litellm-backfill';
/** Spend controls (docs/spend-controls.md): budget alerts, balance thresholds and auto top-up, on a schedule. */
export const QUEUE_SPEND = 'spend';
export const JOB_SPEND_SWEEP = 'spend-sweep';
