import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job, type Queue } from 'bullmq';
import { DomainError } from '../../common/errors/index.js';
import { isDatabaseUnavailable } from '../../database/database-errors.js';
import { QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD } from '../../queue/queue-names.js';
import { USAGE_JOB_ATTEMPTS } from '../../queue/usage-events.producer.js';
import { isSignedUsageJob, signedUsageJobSchema } from '../../queue/signed-usage-events.producer.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SignedJobVerifier } from '../auth/signed-job-verifier.js';
import { UsageService } from './usage.service.js';

/** Jobs processed at once: they meet in the group-commit writer and share transactions. */
export const USAGE_QUEUE_CONCURRENCY = 64;
/**
 * A job is "stalled" when the worker holding it died (kill -9, OOM, deploy). BullMQ's default
 * (1) fails a job that stalls twice, and nothing retries a failed usage job: an event queued by a
 * gateway would never be billed (reproduced by test/reliability/02b-worker-double-crash). The
 * write is idempotent by event_id, so running a stalled job again is always safe.
 */
export const USAGE_JOB_STALLS_MAX = USAGE_JOB_ATTEMPTS;
const TRANSIENT_RETRY_DELAY_MS_MAX = 30_000;

/**
 * Queue path for gateways: the same validation and writer as POST /v1/usage-events. Invalid or
 * conflicting payloads go straight to the dead-letter queue with the reason; a database outage
 * delays the job without spending its attempts, so an event is never dropped for that.
 */
@Processor(QUEUE_USAGE_EVENTS, { concurrency: USAGE_QUEUE_CONCURRENCY, maxStalledCount: USAGE_JOB_STALLS_MAX })
export class UsageEventsProcessor extends WorkerHost {
  private readonly logger = new Logger('UsageEventsProcessor');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageService,
    private readonly signedJobs: SignedJobVerifier,
    @InjectQueue(QUEUE_USAGE_EVENTS_DEAD) private readonly deadLetters: Queue,
  ) {
    super();
  }

  async process(job: Job, token?: string): Promise<unknown> {
    const payload = await this.payloadOf(job, token);
    const parsed = this.usage.parse(payload, 'queue');
    if ('issues' in parsed) return this.deadLetter(job, 'validation_failed', parsed.issues);
    if (job.id !== undefined && job.id !== parsed.event.eventId) {
      return this.deadLetter(job, 'validation_failed', [{ field: 'jobId', message: 'job id must equal event_id' }]);
    }
    try {
      const result = await this.usage.ingestOne(parsed.event);
      return { event_id: result.event.eventId, status: result.event.status, replayed: result.replayed };
    } catch (error) {
      if (error instanceof DomainError) return this.deadLetter(job, error.code, error.details ?? error.message);
      if (isDatabaseUnavailable(error)) return this.delay(job, token, 'database unavailable');
      throw error;
    }
  }

  /**
   * The usage payload: as sent, or, for a signed job, its text once the signature is verified
   * (a bad signature is dead-lettered as bad_signature, like any job that can never succeed).
   */
  private async payloadOf(job: Job, token: string | undefined): Promise<unknown> {
    if (!isSignedUsageJob(job.data)) {
      if (this.config.USAGE_QUEUE_SIGNED_ONLY) return this.deadLetter(job, 'bad_signature', 'unsigned job (USAGE_QUEUE_SIGNED_ONLY)');
      return job.data;
    }
    const envelope = signedUsageJobSchema.safeParse(job.data);
    if (!envelope.success) return this.deadLetter(job, 'bad_signature', 'malformed signed job');
    let body: string;
    try {
      body = await this.signedJobs.verify(envelope.data.signed, { id: String(job.id), timestampMs: job.timestamp });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'bad_signature') return this.deadLetter(job, error.code, error.message);
      if (error instanceof DomainError && error.code === 'unavailable') return this.delay(job, token, 'signature replay check unavailable');
      throw error;
    }
    try {
      return JSON.parse(body);
    } catch {
      return this.deadLetter(job, 'validation_failed', [{ field: 'signed.body', message: 'is not JSON' }]);
    }
  }

  private async delay(job: Job, token: string | undefined, why: string): Promise<never> {
    const delayMs = Math.min(TRANSIENT_RETRY_DELAY_MS_MAX, 500 * 2 ** Math.min(job.attemptsStarted ?? 1, 6));
    this.logger.warn(`${why}, job ${job.id} delayed ${delayMs} ms`);
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }

  private async deadLetter(job: Job, code: string, details: unknown): Promise<never> {
    await this.deadLetters.add(
      'dead-usage-event',
      { job_id: job.id, code, details, data: job.data, failed_at: new Date().toISOString() },
      { jobId: `dead-${job.id}`, removeOnComplete: false, removeOnFail: false },
    );
    throw new UnrecoverableError(`${code}: ${JSON.stringify(details).slice(0, 500)}`);
  }
}
