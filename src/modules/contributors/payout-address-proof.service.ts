// Proof of payout-address ownership (api.md "Contributor trust"): a single-use challenge that the
// address signs (EIP-191 personal_sign, or ERC-1271 for a contract wallet), checked with viem.
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { isAddressEqual, type Address, type Hex } from 'viem';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { prismaSqlRunner } from '../../database/prisma-sql-runner.js';
import { assertCanReadContributor } from '../auth/access.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { AuditService } from '../audit/audit.service.js';
import { AddressProofVerifier } from '../payout-safety/address-proof-verifier.js';
import { PayoutAddressPolicy } from '../payout-safety/payout-address-policy.service.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { ContributorsRepository } from './contributors.repository.js';
import { auditView } from './contributors.service.js';
import type { Contributor } from './contributors.types.js';
import { addressChangedEvent } from './payout-address-change.js';
import { PayoutAddressChallengesRepository } from './payout-address-challenges.repository.js';

/** How long a challenge may be answered (api.md: 10 minutes). */
export const CHALLENGE_TTL_MS = 10 * 60_000;
/** 128 random bits: unguessable, so a challenge cannot be answered before it is asked for. */
const NONCE_BYTES = 16;
/** The chain id a message names when no chain is configured (nothing can be paid then). */
const CHAIN_ID_UNCONFIGURED = 0;

export interface Challenge {
  message: string;
  nonce: string;
  expiresAt: Date;
}

export interface ProofCommand {
  contributorId: string;
  address: Address;
  signature: Hex;
  nonce: string;
}

/** The text the address signs: it names everything the proof is about, so no part can be swapped. */
export function challengeMessage(fields: { contributorId: string; address: Address; chainId: number; nonce: string; expiresAt: Date }): string {
  return [
    'Prove ownership of a payout address',
    `Contributor: ${fields.contributorId}`,
    `Address: ${fields.address}`,
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Expires: ${fields.expiresAt.toISOString()}`,
  ].join('\n');
}

function proofInvalid(why: string, details?: { reason: string }): DomainError {
  return new DomainError('address_proof_invalid', `payout address proof refused: ${why}`, details);
}

@Injectable()
export class PayoutAddressProofService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly contributors: ContributorsRepository,
    private readonly challenges: PayoutAddressChallengesRepository,
    private readonly verifier: AddressProofVerifier,
    private readonly policy: PayoutAddressPolicy,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookOutbox,
  ) {}

  async challenge(actor: Principal, contributorId: string, address: Address): Promise<Challenge> {
    assertCanReadContributor(actor, contributorId);
    await this.requireContributor(contributorId);
    const now = new Date();
    const nonce = randomBytes(NONCE_BYTES).toString('hex');
    const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
    const chainId = this.config.CHAIN_ID ?? CHAIN_ID_UNCONFIGURED;
    const message = challengeMessage({ contributorId, address, chainId, nonce, expiresAt });
    await this.challenges.insert({ nonce, contributorId, address, chainId, message, expiresAt }, now);
    return { message, nonce, expiresAt };
  }

  /** Sets the proven address; 422 address_proof_invalid (nothing changes) for any wrong proof. */
  async prove(actor: Principal, command: ProofCommand): Promise<Contributor> {
    assertCanReadContributor(actor, command.contributorId);
    await this.requireContributor(command.contributorId);
    const now = new Date();
    const challenge = await this.challenges.find(command.nonce);
    // One message for every mismatch: which part was wrong is no help to a legitimate caller.
    if (!challenge || challenge.contributorId !== command.contributorId || !isAddressEqual(challenge.address, command.address)) {
      throw proofInvalid('no challenge was issued for this contributor, address and nonce');
    }
    if (challenge.usedAt !== null) throw proofInvalid('the nonce was already used');
    if (challenge.expiresAt.getTime() <= now.getTime()) throw proofInvalid('the challenge expired');
    const verdict = await this.verifier.verify(command.address, challenge.message, command.signature);
    if (verdict === 'contract_accepts_any_signature') {
      throw proofInvalid('the address is a contract that also accepts a random signature, so its answer proves nothing', { reason: verdict });
    }
    if (verdict !== 'valid') throw proofInvalid('the signature is not the address\'s signature of the challenge message');
    // The rest of payout safety still applies; a proven contract wallet needs no allow_contract.
    await this.policy.assertAcceptable(command.address, { allowContract: true });
    return this.contributors.transaction(async (tx) => {
      if (!(await this.challenges.useUp(tx, command.nonce, new Date()))) throw proofInvalid('the nonce was already used or expired');
      const existing = await this.contributors.findForUpdate(tx, command.contributorId);
      if (!existing) throw new DomainError('not_found', 'contributor not found');
      const changed = !isAddressEqual(existing.payoutAddress, command.address);
      const updated = await this.contributors.update(tx, existing.id, {
        tier: existing.tier,
        payoutAddress: command.address,
        status: existing.status,
        flaggedReason: changed ? null : existing.flaggedReason,
        payoutAddressProvenAt: now,
        payoutAddressChangedAt: changed ? now : existing.payoutAddressChangedAt,
        updatedAt: now,
      });
      if (changed) {
        const change = { contributorId: existing.id, oldAddress: existing.payoutAddress, newAddress: command.address, proven: true, changedAt: now };
        await this.webhooks.emit(prismaSqlRunner(tx), [addressChangedEvent(change, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS)]);
      }
      await this.audit.recordWithPrisma(tx, actor, {
        action: 'contributor.payout_address_proven',
        target: `contributor:${existing.id}`,
        before: { ...auditView(existing), payout_address_proven_at: existing.payoutAddressProvenAt },
        after: { ...auditView(updated), payout_address_proven_at: now, nonce: command.nonce },
      });
      return updated;
    });
  }

  private async requireContributor(id: string): Promise<Contributor> {
    const contributor = await this.contributors.findById(id);
    if (!contributor) throw new DomainError('not_found', 'contributor not found');
    return contributor;
  }
}
