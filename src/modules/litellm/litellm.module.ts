import { Module } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { LitellmController } from './litellm.controller.js';
import { LitellmMetrics } from './litellm-metrics.js';
import { LitellmRepository } from './litellm.repository.js';
import { LitellmService } from './litellm.service.js';

/** LiteLLM proxy integration: the push endpoint, the deployment mapping, the status (api.md "Integrations"). */
@Module({
  imports: [UsageModule, ContributorsModule],
  controllers: [LitellmController],
  providers: [LitellmRepository, LitellmService, LitellmMetrics],
  exports: [LitellmService, LitellmRepository],
})
export class LitellmModule {}
