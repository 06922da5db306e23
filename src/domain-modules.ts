import type { Type } from '@nestjs/common';
import { LedgerModule } from './modules/ledger/ledger.module.js';

/** The domain modules both entry points (API and worker) run over. */
export const DOMAIN_MODULES: Type[] = [LedgerModule];
