// @OnJob marks the method of a queue processor that handles one job of the catalogue (jobs.ts);
// JobProcessor dispatches each job to its method after validating the payload with the job's schema.
import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { ZodError } from 'zod';
import { zodIssuesToFields, type FieldIssue } from '../common/errors/index.js';
import { isJobName, JOBS, type JobName } from './jobs.js';

export interface DeclaredHandler {
  job: JobName;
  /** `Class.method`, for start-up errors. */
  label: string;
  method: string | symbol;
}

const declared = new Map<Function, DeclaredHandler[]>();

/** The handler of `job` (see jobs.ts): called with the validated payload, the job and its lock token. */
export function OnJob(job: JobName): MethodDecorator {
  return (target, method) => {
    const ctor = target.constructor;
    const list = declared.get(ctor) ?? [];
    list.push({ job, method, label: `${ctor.name}.${String(method)}` });
    declared.set(ctor, list);
  };
}

/** The @OnJob handlers a class declares (its own and its base classes'). */
export function declaredHandlers(ctor: Function): DeclaredHandler[] {
  const found: DeclaredHandler[] = [];
  for (let c: Function | null = ctor; c && c !== Object; c = Object.getPrototypeOf(c) as Function | null) found.push(...(declared.get(c) ?? []));
  return found;
}

type Handler = (payload: unknown, job: Job, token?: string) => Promise<unknown>;

/**
 * Base of every queue processor: thin dispatch, no catch-all. A job name without a handler or a
 * payload its schema refuses never succeeds on a retry, so both fail the job without retries.
 */
export abstract class JobProcessor extends WorkerHost {
  private handlers: Map<string, Handler> | null = null;
  private static readonly connectionLogger = new Logger('QueueWorker');

  /**
   * A worker's connection errors (Redis restarting, a Redis Cluster failover unblocking a blocking
   * read) are logged; BullMQ reconnects and carries on. Unheard, each one printed a stack trace.
   */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    JobProcessor.connectionLogger.warn(`queue connection error (reconnecting): ${error.message}`);
  }

  async process(job: Job, token?: string): Promise<unknown> {
    const handler = this.handlerOf(job.name);
    if (!handler || !isJobName(job.name)) return this.refuseUnknownJob(job);
    const parsed = JOBS[job.name].payload.safeParse(job.data);
    if (!parsed.success) return this.refusePayload(job, zodIssuesToFields(parsed.error as ZodError));
    return handler.call(this, parsed.data, job, token);
  }

  /** A job name this processor does not handle. A processor may dead-letter it instead; it must still throw. */
  protected refuseUnknownJob(job: Job): Promise<never> {
    throw new UnrecoverableError(`no handler for job ${job.name} on queue ${job.queueName}`);
  }

  /** A payload the job's schema refuses. A processor may dead-letter it instead; it must still throw. */
  protected refusePayload(job: Job, issues: FieldIssue[]): Promise<never> {
    throw new UnrecoverableError(`job ${job.name} ${job.id}: invalid payload ${JSON.stringify(issues).slice(0, 500)}`);
  }

  private handlerOf(name: string): Handler | undefined {
    if (!this.handlers) {
      const self = this as unknown as Record<string | symbol, Handler>;
      this.handlers = new Map(declaredHandlers(this.constructor).map((h) => [h.job, self[h.method]!]));
    }
    return this.handlers.get(name);
  }
}
