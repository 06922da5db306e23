// Every queue, job name and job option in one place (see conventions.md).
export const QUEUE_USAGE_EVENTS = 'usage-events';
export const QUEUE_USAGE_EVENTS_DEAD = 'usage-events-dead';
export const QUEUE_HOLDS = 'holds';
export const QUEUE_SETTLEMENT = 'settlement';

export const JOB_EXPIRE_HOLDS = 'expire-holds';
export const JOB_SETTLEMENT_RUN = 'settlement-run';
export const JOB_SETTLEMENT_SEND = 'settlement-send';
export const JOB_SETTLEMENT_RECONCILE = 'settlement-reconcile';
export const JOB_SETTLEMENT_FINALITY = 'settlement-finality';

export const HOLD_EXPIRY_EVERY_MS = 15_000;
/** Mined payouts are re-verified against reorganisations this often until final (and during sends). */
export const SETTLEMENT_FINALITY_EVERY_MS = 15_000;

/** Webhooks: the relay (outbox -> deliveries, on a schedule) and one dispatch job per endpoint. */
export const QUEUE_WEBHOOKS = 'webhooks';
export const QUEUE_WEBHOOK_DISPATCH = 'webhook-dispatch';
export const JOB_WEBHOOK_RELAY = 'webhook-relay';
export const JOB_WEBHOOK_DISPATCH = 'webhook-dispatch';
/** How often new outbox events are fanned out and endpoints with due deliveries get a dispatch job. */
export const WEBHOOK_RELAY_EVERY_MS = 1_000;
