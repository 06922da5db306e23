import { Module } from '@nestjs/common';
import { UsageModule } from '../usage/usage.module.js';
import { StreamsController } from './streams.controller.js';

@Module({ imports: [UsageModule], controllers: [StreamsController] })
export class StreamsModule {}
