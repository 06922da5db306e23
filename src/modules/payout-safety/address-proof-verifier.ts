// Checks a payout-address ownership proof (api.md "Contributor trust"): the address's EIP-191
// personal_sign of the challenge message, or for a contract wallet ERC-1271 isValidSignature on the
// chain. viem's verifyMessage on a public client does both (an EOA signature is recovered; any other
// goes through the deployless ERC-6492 validator, which calls isValidSignature), so no signature
// scheme is hand-written here.
import { Inject, Injectable } from '@nestjs/common';
import { createPublicClient, http, verifyMessage, type Address, type Hex, type PublicClient } from 'viem';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';

/** One RPC call (eth_call of the validator); a slow node must not hold the request for long. */
const PROOF_RPC_TIMEOUT_MS = 10_000;

@Injectable()
export class AddressProofVerifier {
  /** null without RPC_URL: only EOA signatures can be checked (no chain to ask about contracts). */
  private readonly client: PublicClient | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = config.RPC_URL ? createPublicClient({ transport: http(config.RPC_URL, { timeout: PROOF_RPC_TIMEOUT_MS, retryCount: 1 }), cacheTime: 0 }) : null;
  }

  /** true when `signature` proves `address` signed `message`; 503 when the chain cannot be asked. */
  async verify(address: Address, message: string, signature: Hex): Promise<boolean> {
    if (!this.client) return verifyMessage({ address, message, signature }).catch(() => false);
    try {
      return await this.client.verifyMessage({ address, message, signature });
    } catch (error) {
      throw new DomainError('unavailable', `cannot verify the signature on the chain (RPC: ${(error as Error).message.split('\n')[0]}); retry`);
    }
  }
}
