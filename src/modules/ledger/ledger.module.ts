import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { LedgerCheckService } from './ledger-check.service.js';
import { LedgerController } from './ledger.controller.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';
import { LedgerCheckRegistry } from './ledger-check-extension.js';
import { LedgerCheckpointRepository } from './ledger-checkpoint.repository.js';
import { LedgerCheckpoints } from './ledger-checkpoint.service.js';
import { LedgerCheckpointQueueProducer } from './ledger-checkpoint-queue.producer.js';

@Module({ imports: [WebhooksModule], controllers: [LedgerController], providers: [LedgerRepository, LedgerService, LedgerCheckRegistry, LedgerCheckService, LedgerCheckpointRepository, LedgerCheckpoints, LedgerCheckpointQueueProducer], exports: [LedgerService, LedgerCheckRegistry, LedgerCheckService] })
export class LedgerModule {}
