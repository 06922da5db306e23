import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_USAGE_AUDIT } from '../../queue/queue-names.js';
import { UsageAuditModule } from './usage-audit.module.js';
import { UsageAuditProcessor } from './usage-audit.processor.js';

/** Worker only: the usage audit's counting jobs and its schedule. */
@Module({ imports: [UsageAuditModule, BullModule.registerQueue({ name: QUEUE_USAGE_AUDIT })], providers: [UsageAuditProcessor] })
export class UsageAuditQueueModule {}
