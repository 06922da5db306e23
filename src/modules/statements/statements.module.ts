import { Module } from '@nestjs/common';
import { StatementsController } from './statements.controller.js';
import { StatementsRepository } from './statements.repository.js';
import { StatementsService } from './statements.service.js';

/** Monthly contributor statements (reads only): JSON, CSV and PDF of one snapshot of the ledger. */
@Module({
  controllers: [StatementsController],
  providers: [StatementsRepository, StatementsService],
  exports: [StatementsService],
})
export class StatementsModule {}
