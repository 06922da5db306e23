import { Inject, Injectable } from '@nestjs/common';
import { getAddress, isAddressEqual, zeroAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../chain/payout-chain.provider.js';
import { PayoutDenylistFile } from './payout-denylist.js';

export const PAYOUT_DENYLIST = Symbol('PAYOUT_DENYLIST');

/**
 * Why an address must not receive payouts. `kind` is what a settlement line that would pay it
 * fails with: `payout_address_denylisted` (the deny list) or `payout_address_refused` (everything
 * else: the funds could never leave, or would pay the platform itself).
 */
export interface PayoutAddressRefusal {
  kind: 'payout_address_refused' | 'payout_address_denylisted';
  reason: string;
}

export interface AddressCheckOptions {
  /** A smart-contract wallet the operator vouches for (api.md: `allow_contract: true`). */
  allowContract?: boolean;
}

/**
 * The payout address policy (api.md "Payout safety"), in one place for the contributor registry
 * (on create and on every address change) and the payout sender (again when a line is sent).
 */
@Injectable()
export class PayoutAddressPolicy {
  private readonly infrastructure: Array<{ address: Address; reason: string }>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    @Inject(PAYOUT_DENYLIST) private readonly denylist: PayoutDenylistFile,
  ) {
    // From the configuration itself, so the refusal holds even while settlement is disabled.
    const known: Array<{ address: string | undefined; reason: string }> = [
      { address: zeroAddress, reason: 'the zero address (USDC cannot be sent there)' },
      { address: config.USDC_ADDRESS, reason: 'the USDC token contract (USDC sent there can never be moved out)' },
      { address: config.PAYOUT_CONTRACT_ADDRESS, reason: 'the payout batch contract (USDC sent there can never be paid out)' },
      { address: config.PAYOUT_PRIVATE_KEY ? privateKeyToAccount(config.PAYOUT_PRIVATE_KEY as Hex).address : undefined, reason: 'the hot wallet (a payout to it pays the platform itself)' },
    ];
    this.infrastructure = known.filter((k): k is { address: string; reason: string } => k.address !== undefined).map((k) => ({ address: getAddress(k.address), reason: k.reason }));
  }

  /** Without RPC: the zero address, the token, the batch contract, the hot wallet, the deny list. */
  screen(address: string): PayoutAddressRefusal | null {
    return this.screener()(address);
  }

  /** A screen for many lines at once: one read of the deny list. */
  screener(): (address: string) => PayoutAddressRefusal | null {
    const denylist = this.denylist.current();
    return (address) => {
      const infrastructure = this.infrastructure.find((k) => isAddressEqual(k.address, address as Address));
      if (infrastructure) return { kind: 'payout_address_refused', reason: `the address is ${infrastructure.reason}` };
      if (denylist.has(address)) return { kind: 'payout_address_denylisted', reason: 'the address is on the payout deny list (PAYOUT_DENYLIST_FILE)' };
      return null;
    };
  }

  /**
   * A new or changed payout address: screened, then refused when it holds contract code (unless
   * allowContract). 422 `payout_address_refused` with the reason; 503 when the chain cannot be
   * asked (an unchecked address is never accepted while settlement is configured).
   */
  async assertAcceptable(address: Address, options: AddressCheckOptions = {}): Promise<void> {
    const refusal = this.screen(address);
    if (refusal) throw refused(address, refusal.reason);
    if (options.allowContract === true) return;
    const client = this.chain.client;
    // Settlement disabled: nothing can be paid, and there is no chain to ask.
    if (!client) return;
    let hasCode: boolean;
    try {
      hasCode = await client.hasCode(address);
    } catch (error) {
      throw new DomainError('unavailable', `cannot check the payout address for contract code (RPC: ${(error as Error).message.split('\n')[0]}); retry`);
    }
    if (hasCode) throw refused(address, 'the address has contract code; send allow_contract: true if this contract wallet can receive and move USDC');
  }
}

function refused(address: Address, reason: string): DomainError {
  return new DomainError('payout_address_refused', `payout address refused: ${reason}`, { payout_address: address, reason });
}
