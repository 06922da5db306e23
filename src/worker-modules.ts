import type { Type } from '@nestjs/common';
import { HistoryQueueModule } from './modules/history/history-queue.module.js';
import { LitellmQueueModule } from './modules/litellm/litellm-queue.module.js';
import { MaturityQueueModule } from './modules/maturity/maturity-queue.module.js';
import { SpendQueueModule } from './modules/spend/spend-queue.module.js';
import { SettlementQueueModule } from './modules/settlement/settlement-queue.module.js';
import { UsageQueueModule } from './modules/usage/usage-queue.module.js';
import { UsageAuditQueueModule } from './modules/usage-audit/usage-audit-queue.module.js';
import { WebhooksQueueModule } from './modules/webhooks/webhooks-queue.module.js';

/** Queue processors and schedulers: loaded by the worker entry point only. */
export const WORKER_MODULES: Type[] = [UsageQueueModule, SettlementQueueModule, WebhooksQueueModule, HistoryQueueModule, MaturityQueueModule, LitellmQueueModule, UsageAuditQueueModule, SpendQueueModule];
