import { Processor } from '@nestjs/bullmq';
import { WORKER_OPTIONS, type JobPayload } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_WEBHOOK_DISPATCH, QUEUE_WEBHOOK_DISPATCH } from '../../queue/queue-names.js';
import { WebhookDispatchService } from './webhook-dispatch.service.js';

/** Thin: one dispatch round for the job's endpoint. Errors propagate (the relay re-enqueues). */
@Processor(QUEUE_WEBHOOK_DISPATCH, WORKER_OPTIONS[QUEUE_WEBHOOK_DISPATCH])
export class WebhookDispatchProcessor extends JobProcessor {
  constructor(private readonly dispatch: WebhookDispatchService) {
    super();
  }

  @OnJob(JOB_WEBHOOK_DISPATCH)
  async dispatchRound(payload: JobPayload<typeof JOB_WEBHOOK_DISPATCH>): Promise<{ attempts: number }> {
    return { attempts: await this.dispatch.dispatchEndpoint(payload.endpoint_id) };
  }
}
