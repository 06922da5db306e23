/**
 * Test hook for crash safety: with PAYOUT_CRASH_AFTER_BROADCAST=1 the process dies right after its
 * first broadcast, before the row is marked `broadcast` (the worst moment). Read from process.env
 * here, not from the config schema, because it is a test-only switch that production ignores.
 */
export function crashAfterBroadcastIfAsked(nodeEnv: string): void {
  if (nodeEnv !== 'production' && process.env.PAYOUT_CRASH_AFTER_BROADCAST === '1') process.exit(137);
}
