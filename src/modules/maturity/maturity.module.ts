import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { RefundsModule } from '../refunds/refunds.module.js';
import { MaturityRepository } from './maturity.repository.js';
import { MaturityService } from './maturity.service.js';

@Module({ imports: [LedgerModule, RefundsModule], providers: [MaturityRepository, MaturityService], exports: [MaturityService] })
export class MaturityModule {}
