import type { Type } from '@nestjs/common';

/** Queue processors and schedulers: loaded by the worker entry point only. */
export const WORKER_MODULES: Type[] = [];
