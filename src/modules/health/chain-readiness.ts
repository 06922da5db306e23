/**
 * The settlement module fills `check` with an RPC probe when a chain is configured. Without one
 * the rpc check reports `disabled` (settlement is disabled and says so in the overview too).
 */
export interface OptionalReadinessCheck {
  check: (() => Promise<void>) | null;
}
export const CHAIN_READINESS = Symbol('CHAIN_READINESS');
