// The only code that touches payout_address_challenges (single-use nonces of address proofs).
import { Injectable } from '@nestjs/common';
import type { Address } from 'viem';
import { DatabaseService, type PrismaTx } from '../../database/database.service.js';

export interface PayoutAddressChallenge {
  nonce: string;
  contributorId: string;
  address: Address;
  chainId: number;
  message: string;
  expiresAt: Date;
  usedAt: Date | null;
}

/** Challenges older than this past their expiry are deleted when a new one is made (nothing reads them). */
const CHALLENGE_RETENTION_MS = 24 * 3600_000;

@Injectable()
export class PayoutAddressChallengesRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(challenge: Omit<PayoutAddressChallenge, 'usedAt'>, now: Date): Promise<void> {
    await this.db.prisma.$transaction([
      this.db.prisma.payoutAddressChallenge.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - CHALLENGE_RETENTION_MS) } } }),
      this.db.prisma.payoutAddressChallenge.create({ data: { ...challenge, createdAt: now } }),
    ]);
  }

  async find(nonce: string): Promise<PayoutAddressChallenge | null> {
    const row = await this.db.prisma.payoutAddressChallenge.findUnique({ where: { nonce } });
    return row ? { ...row, address: row.address as Address } : null;
  }

  /**
   * Uses the nonce up in the caller's transaction: true for exactly one of concurrent proofs
   * naming it (the row update is the arbiter), false when it was used or expired meanwhile.
   */
  async useUp(tx: PrismaTx, nonce: string, now: Date): Promise<boolean> {
    const used = await tx.payoutAddressChallenge.updateMany({ where: { nonce, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    return used.count === 1;
  }
}
