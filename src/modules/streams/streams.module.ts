import { Module } from '@nestjs/common';
import { UsageAuditModule } from '../usage-audit/usage-audit.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { StreamsController } from './streams.controller.js';
import { StreamsService } from './streams.service.js';

@Module({ imports: [UsageModule, UsageAuditModule], controllers: [StreamsController], providers: [StreamsService] })
export class StreamsModule {}
