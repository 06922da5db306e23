import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { HOLD_EXPIRY_EVERY_MS, JOB_EXPIRE_HOLDS, QUEUE_HOLDS } from '../../queue/queue-names.js';
import { HoldsService } from './holds.service.js';

/** Releases expired holds on a schedule (a BullMQ job scheduler: one run at a time, any worker). */
@Processor(QUEUE_HOLDS)
export class HoldsExpiryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger('HoldsExpiry');

  constructor(
    private readonly holds: HoldsService,
    @InjectQueue(QUEUE_HOLDS) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler(JOB_EXPIRE_HOLDS, { every: HOLD_EXPIRY_EVERY_MS }, { name: JOB_EXPIRE_HOLDS, opts: { removeOnComplete: 100, removeOnFail: 100 } });
  }

  async process(): Promise<{ expired: number }> {
    const expired = await this.holds.expireDue();
    if (expired > 0) this.logger.log(`expired ${expired} holds`);
    return { expired };
  }
}
