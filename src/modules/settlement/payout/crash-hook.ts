import type { AppConfig } from '../../../config/index.js';

/**
 * Test hook for crash safety: with PAYOUT_CRASH_AFTER_BROADCAST=1 the process dies right after its
 * first broadcast, before the row is marked `broadcast` (the worst moment). Production ignores it.
 */
export function crashAfterBroadcastIfAsked(config: Pick<AppConfig, 'NODE_ENV' | 'PAYOUT_CRASH_AFTER_BROADCAST'>): void {
  if (config.NODE_ENV !== 'production' && config.PAYOUT_CRASH_AFTER_BROADCAST) process.exit(137);
}
