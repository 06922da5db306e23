import { Processor, WorkerHost } from '@nestjs/bullmq';
import { UnrecoverableError, type Job } from 'bullmq';
import { z } from 'zod';
import { QUEUE_WEBHOOK_DISPATCH } from '../../queue/queue-names.js';
import { WEBHOOK_DISPATCH_CONCURRENCY, WEBHOOK_DISPATCH_LOCK_MS } from './webhook-jobs.js';
import { WebhookDispatchService } from './webhook-dispatch.service.js';

const dispatchJobSchema = z.object({ endpoint_id: z.string().uuid() }).strict();

/** Thin: one dispatch round for the job's endpoint. Errors propagate (the relay re-enqueues). */
@Processor(QUEUE_WEBHOOK_DISPATCH, { concurrency: WEBHOOK_DISPATCH_CONCURRENCY, lockDuration: WEBHOOK_DISPATCH_LOCK_MS, stalledInterval: WEBHOOK_DISPATCH_LOCK_MS })
export class WebhookDispatchProcessor extends WorkerHost {
  constructor(private readonly dispatch: WebhookDispatchService) {
    super();
  }

  async process(job: Job): Promise<{ attempts: number }> {
    const parsed = dispatchJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`invalid dispatch job: ${parsed.error.message}`);
    return { attempts: await this.dispatch.dispatchEndpoint(parsed.data.endpoint_id) };
  }
}
