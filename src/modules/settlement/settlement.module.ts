import { Inject, Module, Optional, type OnModuleInit } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { CHAIN_READINESS, type OptionalReadinessCheck } from '../health/chain-readiness.js';
import { LedgerCheckRegistry } from '../ledger/ledger-check-extension.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { PayoutSafetyModule } from '../payout-safety/payout-safety.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ContributorPayoutsController } from './contributor-payouts.controller.js';
import { PayoutChainModule } from '../chain/payout-chain.module.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../chain/payout-chain.provider.js';
import { HotWalletService } from './payout/hot-wallet.service.js';
import { PayoutFinalityService } from './payout/payout-finality.service.js';
import { PayoutLockRepository } from './payout/payout-lock.repository.js';
import { PayeeScreenService } from './payout/payee-screen.js';
import { PayoutOutcomeService } from './payout/payout-outcome.service.js';
import { DEFAULT_PAYOUT_SENDER_OPTIONS, PAYOUT_SENDER_OPTIONS } from './payout/payout-sender.options.js';
import { PayoutSenderService } from './payout/payout-sender.service.js';
import { PayoutTrackerService } from './payout/payout-tracker.service.js';
import { PayoutTxRepository } from './payout/payout-tx.repository.js';
import { ReconciliationResolutionRepository } from './payout/reconciliation-resolution.repository.js';
import { ReconciliationService } from './payout/reconciliation.service.js';
import { SettlementCheckRepository } from './payout/settlement-check.repository.js';
import { SettlementLinesRepository } from './payout/settlement-lines.repository.js';
import { SettlementQueryService } from './settlement-query.service.js';
import { SettlementQueueProducer } from './creation/settlement-queue.producer.js';
import { SettlementController } from './settlement.controller.js';
import { SettlementRepository } from './creation/settlement.repository.js';
import { SettlementService } from './creation/settlement.service.js';

/** Settlement creation, approval and queries (API), and the payout sender the worker drives. */
@Module({
  imports: [LedgerModule, ContributorsModule, WebhooksModule, PayoutChainModule, PayoutSafetyModule],
  controllers: [SettlementController, ContributorPayoutsController],
  providers: [
    // A copy per app: tests shorten the waits on their own instance.
    { provide: PAYOUT_SENDER_OPTIONS, useFactory: () => ({ ...DEFAULT_PAYOUT_SENDER_OPTIONS }) },
    SettlementRepository,
    SettlementLinesRepository,
    PayoutTxRepository,
    PayoutLockRepository,
    HotWalletService,
    SettlementCheckRepository,
    SettlementQueueProducer,
    SettlementService,
    SettlementQueryService,
    PayeeScreenService,
    PayoutOutcomeService,
    PayoutFinalityService,
    PayoutTrackerService,
    PayoutSenderService,
    ReconciliationService,
    ReconciliationResolutionRepository,
  ],
  exports: [SettlementService, PayoutSenderService, PayoutFinalityService, ReconciliationService, PayoutChainModule],
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
