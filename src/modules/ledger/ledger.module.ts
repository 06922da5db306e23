import { Module } from '@nestjs/common';
import { LedgerController } from './ledger.controller.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';
import { LedgerCheckRegistry } from './ledger-check-extension.js';

@Module({ controllers: [LedgerController], providers: [LedgerRepository, LedgerService, LedgerCheckRegistry], exports: [LedgerService, LedgerCheckRegistry] })
export class LedgerModule {}
