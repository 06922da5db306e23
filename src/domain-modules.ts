import type { Type } from '@nestjs/common';
import { AdminModule } from './modules/admin/admin.module.js';
import { ContributorsModule } from './modules/contributors/contributors.module.js';
import { EarningsModule } from './modules/earnings/earnings.module.js';
import { LedgerModule } from './modules/ledger/ledger.module.js';
import { LitellmModule } from './modules/litellm/litellm.module.js';
import { MaturityModule } from './modules/maturity/maturity.module.js';
import { RefundsModule } from './modules/refunds/refunds.module.js';
import { PricingModule } from './modules/pricing/pricing.module.js';
import { SpendModule } from './modules/spend/spend.module.js';
import { SettlementModule } from './modules/settlement/settlement.module.js';
import { HoldsModule } from './modules/holds/holds.module.js';
import { StreamsModule } from './modules/streams/streams.module.js';
import { UsageModule } from './modules/usage/usage.module.js';
import { UsageAuditModule } from './modules/usage-audit/usage-audit.module.js';
import { UsersModule } from './modules/users/users.module.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';

/** The domain modules both entry points (API and worker) run over. */
export const DOMAIN_MODULES: Type[] = [WebhooksModule, LedgerModule, PricingModule, ContributorsModule, UsersModule, SpendModule, HoldsModule, UsageModule, StreamsModule, EarningsModule, SettlementModule, AdminModule, RefundsModule, MaturityModule, LitellmModule, UsageAuditModule];
