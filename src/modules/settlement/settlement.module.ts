import { Inject, Module, Optional, type OnModuleInit } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { CHAIN_READINESS, type OptionalReadinessCheck } from '../health/chain-readiness.js';
import { LedgerCheckRegistry } from '../ledger/ledger-check-extension.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { ContributorPayoutsController } from './contributor-payouts.controller.js';
import { PAYOUT_CHAIN, payoutChainProvider, type PayoutChainHandle } from './payout-chain.provider.js';
import { PayoutFinalityService } from './payout-finality.service.js';
import { PayoutLockRepository } from './payout-lock.repository.js';
import { PayoutOutcomeService } from './payout-outcome.service.js';
import { DEFAULT_PAYOUT_SENDER_OPTIONS, PAYOUT_SENDER_OPTIONS } from './payout-sender.options.js';
import { PayoutSenderService } from './payout-sender.service.js';
import { PayoutTrackerService } from './payout-tracker.service.js';
import { PayoutTxRepository } from './payout-tx.repository.js';
import { ReconciliationService } from './reconciliation.service.js';
import { SettlementCheckRepository } from './settlement-check.repository.js';
import { SettlementLinesRepository } from './settlement-lines.repository.js';
import { SettlementQueryService } from './settlement-query.service.js';
import { SettlementQueueProducer } from './settlement-queue.producer.js';
import { SettlementController } from './settlement.controller.js';
import { SettlementRepository } from './settlement.repository.js';
import { SettlementService } from './settlement.service.js';

/** Settlement creation, approval and queries (API), and the payout sender the worker drives. */
@Module({
  imports: [LedgerModule, ContributorsModule],
  controllers: [SettlementController, ContributorPayoutsController],
  providers: [
    payoutChainProvider,
    // A copy per app: tests shorten the waits on their own instance.
    { provide: PAYOUT_SENDER_OPTIONS, useFactory: () => ({ ...DEFAULT_PAYOUT_SENDER_OPTIONS }) },
    SettlementRepository,
    SettlementLinesRepository,
    PayoutTxRepository,
    PayoutLockRepository,
    SettlementCheckRepository,
    SettlementQueueProducer,
    SettlementService,
    SettlementQueryService,
    PayoutOutcomeService,
    PayoutFinalityService,
    PayoutTrackerService,
    PayoutSenderService,
    ReconciliationService,
  ],
  exports: [SettlementService, PayoutSenderService, PayoutFinalityService, ReconciliationService, PAYOUT_CHAIN],
})
export class SettlementModule implements OnModuleInit {
  constructor(
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    private readonly registry: LedgerCheckRegistry,
    private readonly reconciliation: ReconciliationService,
    @Optional() @Inject(CHAIN_READINESS) private readonly readiness?: OptionalReadinessCheck,
  ) {}

  onModuleInit(): void {
    const client = this.chain.client;
    // /health/ready probes the RPC (chain id, batch contract owner and token) when a chain is set.
    if (client && this.readiness) this.readiness.check = () => client.verifyChain();
    this.registry.register({ name: 'settlement', run: () => this.reconciliation.ledgerCheck() });
  }
}
