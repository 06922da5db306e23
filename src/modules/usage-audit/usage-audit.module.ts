import { Module } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { UsageAuditController } from './usage-audit.controller.js';
import { UsageAuditProducer } from './usage-audit.producer.js';
import { UsageAuditRepository } from './usage-audit.repository.js';
import { UsageAuditService } from './usage-audit.service.js';

/** The usage audit: verdicts and reviews (API), and the producer the stream route hands streams to. */
@Module({
  imports: [ContributorsModule, WebhooksModule],
  controllers: [UsageAuditController],
  providers: [UsageAuditRepository, UsageAuditService, UsageAuditProducer],
  exports: [UsageAuditService, UsageAuditProducer],
})
export class UsageAuditModule {}
