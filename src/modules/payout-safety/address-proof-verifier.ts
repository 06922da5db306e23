// Checks a payout-address ownership proof (api.md "Contributor trust"): the address's EIP-191
// personal_sign of the challenge message, or for a contract wallet ERC-1271 isValidSignature on the
// chain. viem's verifyMessage on a public client does both (an EOA signature is recovered; any other
// goes through the deployless ERC-6492 validator, which calls isValidSignature), so no signature
// scheme is hand-written here.
//
// A contract decides for itself what is valid, and one whose isValidSignature answers yes to
// everything "proved" with 65 random bytes. So a contract's yes counts only if it says no to a
// signature the service knows to be wrong (a fresh random one), in the same proof.
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createPublicClient, http, isAddressEqual, recoverMessageAddress, verifyMessage, type Address, type Hex, type PublicClient } from 'viem';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';

/** One RPC call (eth_call of the validator); a slow node must not hold the request for long. */
const PROOF_RPC_TIMEOUT_MS = 10_000;
/** r, s and v: the length of the signatures a wallet is usually asked about. */
const WRONG_SIGNATURE_BYTES = 65;

/** `contract_accepts_any_signature`: the address is a contract that also accepted a random signature. */
export type ProofVerdict = 'valid' | 'invalid' | 'contract_accepts_any_signature';

/** Whether the signature is the EIP-191 signature of the address's own key (no chain needed). */
async function signedByKey(address: Address, message: string, signature: Hex): Promise<boolean> {
  return recoverMessageAddress({ message, signature }).then(
    (signer) => isAddressEqual(signer, address),
    () => false,
  );
}

@Injectable()
export class AddressProofVerifier {
  /** null without RPC_URL: only EOA signatures can be checked (no chain to ask about contracts). */
  private readonly client: PublicClient | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = config.RPC_URL ? createPublicClient({ transport: http(config.RPC_URL, { timeout: PROOF_RPC_TIMEOUT_MS, retryCount: 1 }), cacheTime: 0 }) : null;
  }

  /** Whether `signature` proves `address` signed `message` (see ProofVerdict); 503 when the chain cannot be asked. */
  async verify(address: Address, message: string, signature: Hex): Promise<ProofVerdict> {
    if (!this.client) return (await verifyMessage({ address, message, signature }).catch(() => false)) ? 'valid' : 'invalid';
    // The key's own signature needs no call, and no contract can overrule it.
    if (await signedByKey(address, message, signature)) return 'valid';
    if (!(await this.verifyOnChain(this.client, address, message, signature))) return 'invalid';
    const wrong = `0x${randomBytes(WRONG_SIGNATURE_BYTES).toString('hex')}` as const;
    return (await this.verifyOnChain(this.client, address, message, wrong)) ? 'contract_accepts_any_signature' : 'valid';
  }

  private async verifyOnChain(client: PublicClient, address: Address, message: string, signature: Hex): Promise<boolean> {
    try {
      return await client.verifyMessage({ address, message, signature });
    } catch (error) {
      throw new DomainError('unavailable', `cannot verify the signature on the chain (RPC: ${(error as Error).message.split('\n')[0]}); retry`);
    }
  }
}
