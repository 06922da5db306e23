import type { Type } from '@nestjs/common';

/** The domain modules both entry points (API and worker) run over. */
export const DOMAIN_MODULES: Type[] = [];
