/**
 * The settlement module fills `check` with an RPC probe when a chain is configured. Without one
 * the rpc check passes (settlement is disabled and says so in the overview).
 */
export interface OptionalReadinessCheck {
  check: (() => Promise<void>) | null;
}
export const CHAIN_READINESS = Symbol('CHAIN_READINESS');
