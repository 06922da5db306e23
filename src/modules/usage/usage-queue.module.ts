import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_HOLDS, QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD } from '../../queue/queue-names.js';
import { HoldsExpiryProcessor } from '../holds/holds-expiry.processor.js';
import { HoldsModule } from '../holds/holds.module.js';
import { SigningKeysModule } from '../auth/signing-keys.module.js';
import { UsageEventsProcessor } from './usage-events.processor.js';
import { UsageModule } from './usage.module.js';

/** Worker only: the usage-events queue consumer and the hold-expiry schedule. */
@Module({
  imports: [
    UsageModule,
    HoldsModule,
    SigningKeysModule,
    BullModule.registerQueue({ name: QUEUE_USAGE_EVENTS }, { name: QUEUE_USAGE_EVENTS_DEAD }, { name: QUEUE_HOLDS }),
  ],
  providers: [UsageEventsProcessor, HoldsExpiryProcessor],
})
export class UsageQueueModule {}
