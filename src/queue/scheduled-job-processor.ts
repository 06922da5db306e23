// Base of the processors whose jobs a fixed-interval scheduler of the catalogue starts (jobs.ts
// SCHEDULERS with `repeat`): each worker upserts the schedulers at boot, so restarts and several
// workers keep one scheduler per id, and BullMQ runs one job of it at a time on any worker.
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, scheduledJob } from './jobs.js';
import { JobProcessor } from './on-job.js';

type SchedulerSpec = (typeof SCHEDULERS)[keyof typeof SCHEDULERS];
/** A scheduler whose interval is fixed in the catalogue (the others take theirs from the config). */
export type FixedIntervalScheduler = Extract<SchedulerSpec, { repeat: unknown }>;

export abstract class ScheduledJobProcessor extends JobProcessor implements OnApplicationBootstrap {
  /** `schedulerQueue`: the queue this processor consumes, where the schedulers add their jobs. */
  protected constructor(
    private readonly schedulerQueue: Queue,
    private readonly schedulers: readonly FixedIntervalScheduler[],
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    // A scheduler with `every` starts its first job at once.
    for (const { id, job, repeat } of this.schedulers) await this.schedulerQueue.upsertJobScheduler(id, repeat, scheduledJob(job));
  }
}
