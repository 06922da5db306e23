import { Module } from '@nestjs/common';
import { UsageAuditModule } from '../usage-audit/usage-audit.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { StreamsController } from './streams.controller.js';

@Module({ imports: [UsageModule, UsageAuditModule], controllers: [StreamsController] })
export class StreamsModule {}
