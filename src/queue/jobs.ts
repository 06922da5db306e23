// Every job of every queue in one place: its queue, payload schema and options, the schedulers
// that start jobs by themselves, and each queue's worker options. Producers enqueue only through
// jobOptions(); processors handle a job with @OnJob (on-job.ts), and the worker refuses to start
// unless every handled job has exactly one handler (job-handlers.check.ts).
import type { WorkerOptions } from 'bullmq';
import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { usageEventSchema } from '../modules/usage/usage.schemas.js';
import { isSignedUsageJob, signedUsageJobSchema, type SignedUsageJob } from './signed-usage-job.js';
import { usageJobId as jobIdOfEvent } from './usage-job-id.js';
import {
  JOB_DEAD_USAGE_EVENT,
  JOB_EARNINGS_MATURE,
  JOB_EXPIRE_HOLDS,
  JOB_LEDGER_CHECKPOINT,
  JOB_LEDGER_FULL_PROOF,
  JOB_USAGE_USER_ROLLUP,
  JOB_LITELLM_BACKFILL,
  QUEUE_LITELLM,
  JOB_SPEND_SWEEP,
  QUEUE_SPEND,
  JOB_USAGE_PARTITIONS,
  JOB_USAGE_AUDIT_COUNT,
  JOB_USAGE_AUDIT_RUN,
  QUEUE_HISTORY,
  QUEUE_USAGE_AUDIT,
  JOB_SETTLEMENT_FINALITY,
  JOB_SETTLEMENT_RECONCILE,
  JOB_SETTLEMENT_RUN,
  JOB_SETTLEMENT_SEND,
  JOB_USAGE_EVENT,
  JOB_WEBHOOK_DISPATCH,
  JOB_WEBHOOK_RELAY,
  QUEUE_EARNINGS,
  QUEUE_HOLDS,
  QUEUE_WEBHOOK_DISPATCH,
  QUEUE_WEBHOOKS,
  QUEUE_SETTLEMENT,
  QUEUE_USAGE_EVENTS,
  QUEUE_USAGE_EVENTS_DEAD,
  type QueueName,
} from './queue-names.js';

/** A usage event published by a gateway: retried for a long time (the ledger dedupes by event_id). */
export const USAGE_JOB_ATTEMPTS = 20;
export const USAGE_JOB_BACKOFF_MS = 1_000;
/** Sending moves money: retried with backoff, and holds (paused token) do not count as attempts. */
export const SEND_JOB_ATTEMPTS = 8;
export const SEND_JOB_BACKOFF_MS = 5_000;
const RECONCILE_JOB_ATTEMPTS = 5;
const RUN_JOB_ATTEMPTS = 3;
const RUN_JOB_BACKOFF_MS = 30_000;
const SETTLEMENT_JOBS_KEPT = 1_000;
const SCHEDULED_JOBS_KEPT = 100;
const USAGE_JOB_KEPT_S = 24 * 3600;
const USAGE_JOBS_KEPT = 100_000;

export const HOLD_EXPIRY_EVERY_MS = 15_000;
/** Budget alerts, balance thresholds and auto top-up are looked at this often (spending itself does no such work). */
export const SPEND_SWEEP_EVERY_MS = 15_000;
/** Mined payouts are re-verified against reorganisations this often until final (and during sends). */
export const SETTLEMENT_FINALITY_EVERY_MS = 15_000;

/** usage-events jobs processed at once: they meet in the group-commit writer and share transactions. */
export const USAGE_QUEUE_CONCURRENCY = 64;
/**
 * A job is "stalled" when the worker holding it died (kill -9, OOM, deploy). BullMQ's default
 * (1) fails a job that stalls twice, and nothing retries a failed usage job: an event queued by a
 * gateway would never be billed (reproduced by test/reliability/02b-worker-double-crash). The
 * write is idempotent by event_id, so running a stalled job again is always safe.
 */
export const USAGE_JOB_STALLS_MAX = USAGE_JOB_ATTEMPTS;
/** One settlement job at a time per worker: sends are serialized per wallet anyway (advisory lock). */
const SETTLEMENT_WORKER_CONCURRENCY = 1;
/** Sends wait for confirmations inside the job; the lock is renewed meanwhile. */
const SETTLEMENT_JOB_LOCK_MS = 60_000;

/**
 * usage_events partitions are ensured this often (and at worker start), USAGE_PARTITIONS_AHEAD_MONTHS
 * ahead, and for every month whose rows wait in the default partition: often enough that late
 * events do not pile up there (each attach scans the default partition); a run that creates
 * nothing reads only the catalog and the default partition.
 */
export const USAGE_PARTITIONS_EVERY_MS = 15 * 60_000;
export const USAGE_PARTITIONS_AHEAD_MONTHS = 3;
/** A verified ledger checkpoint this often: the check's cost is what was written since. */
export const LEDGER_CHECKPOINT_EVERY_MS = 10 * 60_000;
/**
 * usage_user_key_daily moved to the usage_events frontier this often: a summary by user or key
 * reads the events above it (ingested since), so this bounds that part to about this long's traffic.
 */
export const USAGE_USER_ROLLUP_EVERY_MS = 30_000;
/**
 * The whole journal proven once a day (UTC, a quiet hour): every posting summed, as ?full=true.
 * The checkpointed check relies on the entries at or below its checkpoint being those it was
 * proven against; this finds one changed there without anyone asking for ?full=true (issue 35).
 * A pattern, not `every`: a worker's start does not run it (it reads all history).
 */
export const LEDGER_FULL_PROOF_CRON = '17 3 * * *';
/** The first checkpoint reads the whole journal: its lock is renewed meanwhile. */
const HISTORY_JOB_LOCK_MS = 120_000;

const settlementRef = z.object({ settlement_id: z.string().uuid() });

/**
 * Streams to audit, as the API's stream route hands them over (usage-audit.producer.ts): the
 * reassembled text is in the job only until it is counted (removed on completion, and on failure:
 * the audit is a statistic, a lost sample only makes it a little slower to conclude).
 */
export const USAGE_AUDIT_SAMPLES_PER_JOB_MAX = 200;
export const usageAuditSampleSchema = z
  .object({
    event_id: z.string(),
    contributor_id: z.string(),
    model: z.string(),
    occurred_at: z.string(),
    reported_tokens: z.number().int().nonnegative(),
    texts: z.array(z.string()),
    /** The provider's prompt tokens and the gateway's own count (both or neither). */
    reported_prompt_tokens: z.number().int().nonnegative().optional(),
    gateway_prompt_tokens: z.number().int().positive().optional(),
    /** Reasoning tokens reported without reasoning text (no one can count them). */
    hidden_reasoning_tokens: z.number().int().nonnegative().optional(),
  })
  .strict();
export type UsageAuditSample = z.output<typeof usageAuditSampleSchema>;
const USAGE_AUDIT_JOB_ATTEMPTS = 3;
/** Audit jobs counted at once per worker (tokenizing is CPU: more would only queue on the event loop). */
const USAGE_AUDIT_CONCURRENCY = 2;

/** Outbox events are fanned out and due endpoints dispatched this often (the relay's schedule). */
export const WEBHOOK_RELAY_EVERY_MS = 1_000;
/** Matured earnings move to payable this often (idempotent per contributor and day; catches up after downtime). */
export const EARNINGS_MATURITY_EVERY_MS = 15 * 60_000;
/**
 * Dispatch jobs handled at once per worker process. A job only starts its endpoint's round in the
 * endpoint's own lane and returns (webhook-dispatch.service.ts), so this bounds job handling, not
 * deliveries in flight.
 */
const WEBHOOK_DISPATCH_CONCURRENCY = 8;
/** A dispatch job whose worker died is taken again after at most this long (BullMQ's stalled check). */
const WEBHOOK_DISPATCH_LOCK_MS = 15_000;

/**
 * A usage job: the event as a gateway sends it over HTTP, or a signed one (the event's JSON text
 * with its signature, signed-usage-job.ts). Each form is checked by its own schema, so a bad
 * unsigned event reports its own field issues.
 */
type UsageJobData = z.output<typeof usageEventSchema> | SignedUsageJob;
const usageJobPayload = z.unknown().transform((value, ctx): UsageJobData => {
  const parsed = isSignedUsageJob(value) ? signedUsageJobSchema.safeParse(value) : usageEventSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as never);
  return z.NEVER;
});

/**
 * Job id = usageJobId(event_id) for both forms (a signed job's event id is inside its signed text):
 * the event_id itself, escaped when BullMQ would refuse it (usage-job-id.ts).
 */
function usageJobId(payload: UsageJobData): string {
  if (!isSignedUsageJob(payload)) return jobIdOfEvent((payload as { event_id: string }).event_id);
  const eventId = (JSON.parse((payload as SignedUsageJob).signed.body) as { event_id?: unknown }).event_id;
  return typeof eventId === 'string' ? jobIdOfEvent(eventId) : `signed-${(payload as SignedUsageJob).signed.webhook_id}`;
}
const noPayload = z.object({}).passthrough();

/**
 * `handled`: a worker processor must handle it (exactly one). Dead letters are kept for an
 * operator and handled by nobody.
 */
interface JobSpec<S extends z.ZodType> {
  queue: QueueName;
  payload: S;
  handled: boolean;
  options: (payload: z.output<S>) => JobsOptions;
}

const spec = <S extends z.ZodType>(s: JobSpec<S>) => s;
/** `attempts` runs at most, the retries spaced by exponential backoff from `backoffMs`. */
const retried = (attempts: number, backoffMs: number) => ({ attempts, backoff: { type: 'exponential' as const, delay: backoffMs } });
/** The last `count` completed and the last `count` failed jobs are kept (for an operator), older ones removed. */
const keptLast = (count: number) => ({ removeOnComplete: { count }, removeOnFail: { count } });
/** A job a scheduler starts (SCHEDULERS): no payload, a handler, the last SCHEDULED_JOBS_KEPT kept; not retried (the next run comes). */
const schedulerJob = (queue: QueueName) => spec({ queue, payload: noPayload, handled: true, options: () => keptLast(SCHEDULED_JOBS_KEPT) });

export const JOBS = {
  /**
   * Job id = usageJobId(event_id): BullMQ drops a second add while the first is kept; the ledger
   * dedupes anyway. A job that is dead-lettered is removed as it fails (the letter keeps its data
   * and reason), so a republish after the cause is fixed is a new job and is billed; any other
   * failed job is kept for an operator.
   */
  [JOB_USAGE_EVENT]: spec({
    queue: QUEUE_USAGE_EVENTS,
    payload: usageJobPayload,
    handled: true,
    options: (p) => ({
      jobId: usageJobId(p),
      ...retried(USAGE_JOB_ATTEMPTS, USAGE_JOB_BACKOFF_MS),
      removeOnComplete: { age: USAGE_JOB_KEPT_S, count: USAGE_JOBS_KEPT },
      removeOnFail: false,
    }),
  }),
  /**
   * A usage job that can never succeed, with the reason: kept until an operator or the gateway
   * removes it (README: "Recovering dead letters"). One letter per failed job (its id and creation
   * time), so a republished job that fails again gets a letter of its own.
   */
  [JOB_DEAD_USAGE_EVENT]: spec({
    queue: QUEUE_USAGE_EVENTS_DEAD,
    payload: z.object({ job_id: z.string().optional(), job_timestamp: z.number().optional(), code: z.string(), details: z.unknown(), data: z.unknown(), failed_at: z.string() }),
    handled: false,
    options: (p) => ({ jobId: `dead-${p.job_id}-${p.job_timestamp ?? 0}`, removeOnComplete: false, removeOnFail: false }),
  }),
  [JOB_EXPIRE_HOLDS]: spec({
    queue: QUEUE_HOLDS,
    payload: noPayload,
    handled: true,
    options: () => ({ removeOnComplete: SCHEDULED_JOBS_KEPT, removeOnFail: SCHEDULED_JOBS_KEPT }),
  }),
  [JOB_SPEND_SWEEP]: schedulerJob(QUEUE_SPEND),
  [JOB_SETTLEMENT_RUN]: spec({
    queue: QUEUE_SETTLEMENT,
    payload: noPayload,
    handled: true,
    options: () => ({ ...retried(RUN_JOB_ATTEMPTS, RUN_JOB_BACKOFF_MS), ...keptLast(SCHEDULED_JOBS_KEPT) }),
  }),
  /** Job id = settlement id: one send job per settlement. */
  [JOB_SETTLEMENT_SEND]: spec({
    queue: QUEUE_SETTLEMENT,
    payload: settlementRef,
    handled: true,
    options: (p) => ({ jobId: p.settlement_id, ...retried(SEND_JOB_ATTEMPTS, SEND_JOB_BACKOFF_MS), ...keptLast(SETTLEMENT_JOBS_KEPT) }),
  }),
  [JOB_SETTLEMENT_RECONCILE]: spec({
    queue: QUEUE_SETTLEMENT,
    payload: settlementRef,
    handled: true,
    options: (p) => ({ jobId: `reconcile-${p.settlement_id}-${Date.now()}`, ...retried(RECONCILE_JOB_ATTEMPTS, SEND_JOB_BACKOFF_MS), ...keptLast(SETTLEMENT_JOBS_KEPT) }),
  }),
  [JOB_SETTLEMENT_FINALITY]: schedulerJob(QUEUE_SETTLEMENT),
  /** Moves matured earnings from pending to payable (a scheduler). */
  [JOB_EARNINGS_MATURE]: schedulerJob(QUEUE_EARNINGS),
  /** Fans the outbox out into deliveries and enqueues the endpoints with due work (a scheduler). */
  [JOB_WEBHOOK_RELAY]: spec({
    queue: QUEUE_WEBHOOKS,
    payload: noPayload,
    handled: true,
    options: () => ({ removeOnComplete: true, removeOnFail: SCHEDULED_JOBS_KEPT }),
  }),
  /**
   * One dispatch round for one endpoint. Job id = endpoint: a second add while one waits or runs
   * is dropped (the relay adds again next tick if work is still due); finished jobs are removed at
   * once so the id is free; a failed one (database down) is not retried, the relay re-adds it.
   */
  [JOB_WEBHOOK_DISPATCH]: spec({
    queue: QUEUE_WEBHOOK_DISPATCH,
    payload: z.object({ endpoint_id: z.string().uuid() }).strict(),
    handled: true,
    options: (p) => ({ jobId: `dispatch-${p.endpoint_id}`, attempts: 1, removeOnComplete: true, removeOnFail: true }),
  }),
  /** Creates usage_events' monthly partitions ahead (and moves stray rows out of the default one). */
  [JOB_USAGE_PARTITIONS]: schedulerJob(QUEUE_HISTORY),
  /** Writes a verified ledger checkpoint at the journal's frontier (the check then reads only what follows). */
  [JOB_LEDGER_CHECKPOINT]: schedulerJob(QUEUE_HISTORY),
  /** Sums every posting of the journal (the daily proof); a failure is announced as ledger.check_failed. */
  [JOB_LEDGER_FULL_PROOF]: schedulerJob(QUEUE_HISTORY),
  /** Adds the priced events above usage_user_key_daily's frontier and recomputes the days changed since. */
  [JOB_USAGE_USER_ROLLUP]: schedulerJob(QUEUE_HISTORY),
  /** Counts the completion tokens of a batch of streams and records their ratios (no content kept). */
  [JOB_USAGE_AUDIT_COUNT]: spec({
    queue: QUEUE_USAGE_AUDIT,
    payload: z.object({ samples: z.array(usageAuditSampleSchema).min(1).max(USAGE_AUDIT_SAMPLES_PER_JOB_MAX) }).strict(),
    handled: true,
    options: () => ({ ...retried(USAGE_AUDIT_JOB_ATTEMPTS, USAGE_JOB_BACKOFF_MS), removeOnComplete: true, removeOnFail: true }),
  }),
  /** The audit's verdicts per contributor and model (a scheduler, USAGE_AUDIT_INTERVAL_SECONDS). */
  [JOB_USAGE_AUDIT_RUN]: schedulerJob(QUEUE_USAGE_AUDIT),
  /**
   * Reads LiteLLM's spend log from the checkpoint (a scheduler every LITELLM_BACKFILL_SECONDS, only
   * with LITELLM_DATABASE_URL). Not retried: the next run re-reads from the same checkpoint.
   */
  [JOB_LITELLM_BACKFILL]: schedulerJob(QUEUE_LITELLM),
} as const;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = z.output<(typeof JOBS)[N]['payload']>;

export function isJobName(name: string): name is JobName {
  return Object.hasOwn(JOBS, name);
}

/** The options every producer uses for a job (ids, attempts, backoff, retention). */
export function jobOptions<N extends JobName>(name: N, payload: JobPayload<N>): JobsOptions {
  return (JOBS[name].options as (p: JobPayload<N>) => JobsOptions)(payload);
}

/** Job schedulers (BullMQ upsertJobScheduler): id, the job they start and how often. */
export const SCHEDULERS = {
  holdExpiry: { id: 'expire-holds', queue: QUEUE_HOLDS, job: JOB_EXPIRE_HOLDS, repeat: { every: HOLD_EXPIRY_EVERY_MS } },
  spendSweep: { id: 'spend-sweep', queue: QUEUE_SPEND, job: JOB_SPEND_SWEEP, repeat: { every: SPEND_SWEEP_EVERY_MS } },
  settlementFinality: { id: 'settlement-finality', queue: QUEUE_SETTLEMENT, job: JOB_SETTLEMENT_FINALITY, repeat: { every: SETTLEMENT_FINALITY_EVERY_MS } },
  /** Its pattern is SETTLEMENT_CRON (UTC). */
  settlementRun: { id: 'settlement-cron', queue: QUEUE_SETTLEMENT, job: JOB_SETTLEMENT_RUN },
  webhookRelay: { id: 'webhook-relay', queue: QUEUE_WEBHOOKS, job: JOB_WEBHOOK_RELAY, repeat: { every: WEBHOOK_RELAY_EVERY_MS } },
  usagePartitions: { id: 'usage-partitions', queue: QUEUE_HISTORY, job: JOB_USAGE_PARTITIONS, repeat: { every: USAGE_PARTITIONS_EVERY_MS } },
  ledgerCheckpoint: { id: 'ledger-checkpoint', queue: QUEUE_HISTORY, job: JOB_LEDGER_CHECKPOINT, repeat: { every: LEDGER_CHECKPOINT_EVERY_MS } },
  usageUserRollup: { id: 'usage-user-rollup', queue: QUEUE_HISTORY, job: JOB_USAGE_USER_ROLLUP, repeat: { every: USAGE_USER_ROLLUP_EVERY_MS } },
  ledgerFullProof: { id: 'ledger-full-proof', queue: QUEUE_HISTORY, job: JOB_LEDGER_FULL_PROOF, repeat: { pattern: LEDGER_FULL_PROOF_CRON, tz: 'UTC' } },
  earningsMaturity: { id: 'earnings-maturity', queue: QUEUE_EARNINGS, job: JOB_EARNINGS_MATURE, repeat: { every: EARNINGS_MATURITY_EVERY_MS } },
  /** Its interval is USAGE_AUDIT_INTERVAL_SECONDS. */
  usageAudit: { id: 'usage-audit', queue: QUEUE_USAGE_AUDIT, job: JOB_USAGE_AUDIT_RUN },
  /** Every LITELLM_BACKFILL_SECONDS; only when LITELLM_DATABASE_URL is set. */
  litellmBackfill: { id: 'litellm-backfill', queue: QUEUE_LITELLM, job: JOB_LITELLM_BACKFILL },
} as const;

/** The job template a scheduler adds: the job's name, no payload, the job's own options. */
export function scheduledJob(
  job:
    | typeof JOB_EXPIRE_HOLDS
    | typeof JOB_SPEND_SWEEP
    | typeof JOB_SETTLEMENT_FINALITY
    | typeof JOB_SETTLEMENT_RUN
    | typeof JOB_WEBHOOK_RELAY
    | typeof JOB_USAGE_PARTITIONS
    | typeof JOB_LEDGER_CHECKPOINT
    | typeof JOB_LEDGER_FULL_PROOF
    | typeof JOB_USAGE_USER_ROLLUP
    | typeof JOB_EARNINGS_MATURE
    | typeof JOB_USAGE_AUDIT_RUN
    | typeof JOB_LITELLM_BACKFILL,
) {
  return { name: job, data: {}, opts: jobOptions(job, {}) };
}

/** Worker options per queue (the @Processor of each queue passes them). */
export const WORKER_OPTIONS: Record<
  | typeof QUEUE_USAGE_EVENTS
  | typeof QUEUE_HOLDS
  | typeof QUEUE_SETTLEMENT
  | typeof QUEUE_WEBHOOKS
  | typeof QUEUE_WEBHOOK_DISPATCH
  | typeof QUEUE_HISTORY
  | typeof QUEUE_EARNINGS
  | typeof QUEUE_USAGE_AUDIT
  | typeof QUEUE_LITELLM
  | typeof QUEUE_SPEND,
  Partial<WorkerOptions>
> = {
  [QUEUE_USAGE_AUDIT]: { concurrency: USAGE_AUDIT_CONCURRENCY },
  [QUEUE_USAGE_EVENTS]: { concurrency: USAGE_QUEUE_CONCURRENCY, maxStalledCount: USAGE_JOB_STALLS_MAX },
  [QUEUE_HOLDS]: {},
  [QUEUE_SPEND]: {},
  [QUEUE_EARNINGS]: {},
  [QUEUE_SETTLEMENT]: { concurrency: SETTLEMENT_WORKER_CONCURRENCY, lockDuration: SETTLEMENT_JOB_LOCK_MS },
  [QUEUE_WEBHOOKS]: {},
  [QUEUE_WEBHOOK_DISPATCH]: { concurrency: WEBHOOK_DISPATCH_CONCURRENCY, lockDuration: WEBHOOK_DISPATCH_LOCK_MS, stalledInterval: WEBHOOK_DISPATCH_LOCK_MS },
  [QUEUE_HISTORY]: { lockDuration: HISTORY_JOB_LOCK_MS },
  // A backfill run reads up to LITELLM_BACKFILL_PAGES_MAX pages: its lock is renewed meanwhile.
  [QUEUE_LITELLM]: { lockDuration: HISTORY_JOB_LOCK_MS },
};
