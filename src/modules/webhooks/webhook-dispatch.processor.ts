import { Processor } from '@nestjs/bullmq';
import { WORKER_OPTIONS, type JobPayload } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_WEBHOOK_DISPATCH, QUEUE_WEBHOOK_DISPATCH } from '../../queue/queue-names.js';
import { WebhookDispatchService, type RoundStart } from './webhook-dispatch.service.js';

/**
 * Thin: starts one dispatch round for the job's endpoint in its own lane and returns at once, so
 * the job slot is free again in milliseconds whatever the receiver does. A round not started
 * (already in flight, lanes full, shutting down) is offered again by the relay's next tick.
 */
@Processor(QUEUE_WEBHOOK_DISPATCH, WORKER_OPTIONS[QUEUE_WEBHOOK_DISPATCH])
export class WebhookDispatchProcessor extends JobProcessor {
  constructor(private readonly dispatch: WebhookDispatchService) {
    super();
  }

  @OnJob(JOB_WEBHOOK_DISPATCH)
  dispatchRound(payload: JobPayload<typeof JOB_WEBHOOK_DISPATCH>): { round: RoundStart } {
    return { round: this.dispatch.startRound(payload.endpoint_id) };
  }
}
