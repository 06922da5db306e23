import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { DelayedError, UnrecoverableError, type Job, type Queue } from 'bullmq';
import { DomainError, type FieldIssue } from '../../common/errors/index.js';
import { isDatabaseUnavailable } from '../../common/errors/database-errors.js';
import { jobOptions, WORKER_OPTIONS, type JobPayload } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_DEAD_USAGE_EVENT, JOB_USAGE_EVENT, QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD } from '../../queue/queue-names.js';
import { isSignedUsageJob, type SignedUsageJob } from '../../queue/signed-usage-job.js';
import { usageJobId } from '../../queue/usage-job-id.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SignedJobVerifier } from '../auth/signed-job-verifier.js';
import { UsageService } from './usage.service.js';

const TRANSIENT_RETRY_DELAY_MS_MAX = 30_000;

/**
 * Queue path for gateways: the same validation and writer as POST /v1/usage-events. Invalid or
 * conflicting payloads (and jobs of another name) go straight to the dead-letter queue with the
 * reason; a database outage delays the job without spending its attempts, so an event is never
 * dropped for that.
 */
@Processor(QUEUE_USAGE_EVENTS, WORKER_OPTIONS[QUEUE_USAGE_EVENTS])
export class UsageEventsProcessor extends JobProcessor {
  private readonly logger = new Logger('UsageEventsProcessor');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageService,
    private readonly signedJobs: SignedJobVerifier,
    @InjectQueue(QUEUE_USAGE_EVENTS_DEAD) private readonly deadLetters: Queue,
  ) {
    super();
  }

  @OnJob(JOB_USAGE_EVENT)
  async ingest(payload: JobPayload<typeof JOB_USAGE_EVENT>, job: Job, token?: string): Promise<unknown> {
    const parsed = isSignedUsageJob(payload) ? this.usage.parse(await this.verifiedBody(payload, job, token), 'queue') : await this.unsigned(payload, job);
    if ('issues' in parsed) return this.deadLetter(job, 'validation_failed', parsed.issues);
    const expectedJobId = usageJobId(parsed.event.eventId);
    if (job.id !== undefined && job.id !== expectedJobId) {
      return this.deadLetter(job, 'validation_failed', [{ field: 'jobId', message: `job id must be usageJobId(event_id) = ${JSON.stringify(expectedJobId)}` }]);
    }
    try {
      const result = await this.usage.ingestOne(parsed.event);
      return { event_id: result.event.eventId, status: result.event.status, replayed: result.replayed };
    } catch (error) {
      if (error instanceof DomainError) return this.deadLetter(job, error.code, error.details ?? error.message);
      if (isDatabaseUnavailable(error)) return this.delay(job, token, 'database unavailable');
      // The last attempt of an unexpected failure leaves a letter too: nothing is dropped unseen.
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) return this.deadLetter(job, 'retries_exhausted', error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  private unsigned(payload: Exclude<JobPayload<typeof JOB_USAGE_EVENT>, SignedUsageJob>, job: Job): ReturnType<UsageService['fromInput']> | Promise<never> {
    if (this.config.USAGE_QUEUE_SIGNED_ONLY) return this.deadLetter(job, 'bad_signature', 'unsigned job (USAGE_QUEUE_SIGNED_ONLY)');
    return this.usage.fromInput(payload, 'queue');
  }

  /**
   * A signed job's payload, as JSON, once its signature is verified: a bad signature is
   * dead-lettered as bad_signature (it can never succeed); Redis down delays the job.
   */
  private async verifiedBody(payload: SignedUsageJob, job: Job, token: string | undefined): Promise<unknown> {
    let body: string;
    try {
      body = await this.signedJobs.verify(payload.signed, { id: String(job.id), timestampMs: job.timestamp });
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

  protected override refusePayload(job: Job, issues: FieldIssue[]): Promise<never> {
    return this.deadLetter(job, 'validation_failed', issues);
  }

  protected override refuseUnknownJob(job: Job): Promise<never> {
    return this.deadLetter(job, 'unknown_job', `no job named ${job.name} on ${QUEUE_USAGE_EVENTS}; publish ${JOB_USAGE_EVENT}`);
  }

  /**
   * Writes the letter, then fails the job so that BullMQ removes it: a kept failed job held the
   * job id, and a gateway republishing the event once its cause was fixed (job id = event_id, as
   * documented) was dropped silently by `add`. The letter, written first, is the record; a crash
   * in between runs the job again and writes the same letter (same id).
   */
  private async deadLetter(job: Job, code: string, details: unknown): Promise<never> {
    const letter = { job_id: job.id, job_timestamp: job.timestamp, code, details, data: job.data, failed_at: new Date().toISOString() };
    await this.deadLetters.add(JOB_DEAD_USAGE_EVENT, letter, jobOptions(JOB_DEAD_USAGE_EVENT, letter));
    // The worker fails the job with this Job object's options (Job.moveToFailed reads opts.removeOnFail).
    job.opts.removeOnFail = true;
    throw new UnrecoverableError(`${code}: ${JSON.stringify(details).slice(0, 500)}`);
  }
}
