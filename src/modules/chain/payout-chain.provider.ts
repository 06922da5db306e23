// The payout chain client when a chain is configured; otherwise why settlement is disabled.
import type { Provider } from '@nestjs/common';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, chainSettings, type AppConfig } from '../../config/index.js';
import { PayoutChainClient } from './payout-chain.client.js';

export const PAYOUT_CHAIN = Symbol('PAYOUT_CHAIN');

export class PayoutChainHandle {
  constructor(
    readonly client: PayoutChainClient | null,
    readonly disabledReason: string | null,
  ) {}

  /** The client, or the coded 422 that tells an admin what to configure. */
  require(): PayoutChainClient {
    if (!this.client) throw new DomainError('settlement_disabled', this.disabledReason ?? 'settlement is disabled');
    return this.client;
  }
}

const DISABLED_MESSAGE =
  'settlement is disabled: RPC_URL, CHAIN_ID, USDC_ADDRESS, PAYOUT_CONTRACT_ADDRESS and PAYOUT_PRIVATE_KEY (or PAYOUT_PRIVATE_KEY_FILE) must all be set';

export function createPayoutChainHandle(config: AppConfig): PayoutChainHandle {
  const settings = chainSettings(config);
  // CHAIN_ID is required too: every signed transaction commits to it (EIP-155).
  if (!settings || settings.chainId === undefined) return new PayoutChainHandle(null, DISABLED_MESSAGE);
  return new PayoutChainHandle(new PayoutChainClient({ ...settings, chainId: settings.chainId }), null);
}

export const payoutChainProvider: Provider = {
  provide: PAYOUT_CHAIN,
  inject: [APP_CONFIG],
  useFactory: createPayoutChainHandle,
};
