import { Inject, Injectable } from '@nestjs/common';
import type { Address } from 'viem';
import { VersionedSnapshot } from '../../common/cache/versioned-snapshot.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import type { PrismaTx, SqlClient } from '../../database/database.service.js';
import { prismaSqlRunner } from '../../database/prisma-sql-runner.js';
import { AuditService } from '../audit/audit.service.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { PayoutAddressPolicy } from '../payout-safety/payout-address-policy.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { ContributorsRepository, isContributorIdConflict } from './contributors.repository.js';
import type { Contributor, ContributorStatus, ContributorTier, PayeeState, TierBook } from './contributors.types.js';
import { createTierBook } from './tier-book.js';
import { addressChangedEvent } from './payout-address-change.js';

/** How stale getTierBook() may be when another process changed a tier (see getTierBookFresh). */
export const TIER_BOOK_CHECK_INTERVAL_MS = 250;
/**
 * effective_from of a new contributor's first tier row. Not the registration time: a gateway may
 * report an event that occurred before the contributor was registered (late arrival, or a
 * registration made after the fact), and that event must still price, at the first tier, rather
 * than be refused as an unknown contributor.
 */
export const TIER_HISTORY_START = new Date('1970-01-01T00:00:00.000Z');
/** A concurrent create of the same id aborts our transaction; the retry sees the row and updates. */
const ID_CONFLICT_ATTEMPTS_MAX = 3;

export interface PutContributorCommand {
  id: string;
  tier: ContributorTier;
  payoutAddress: Address;
  /** Omitted: "active" for a new contributor, unchanged for an existing one. */
  status?: ContributorStatus;
  /** Clears a settlement flag (USDC refused the payee); a new payout address clears it too. */
  clearFlag?: boolean;
  /** Accept a payout address with contract code (checked only when the address is new or changes). */
  allowContract?: boolean;
}

export interface PutContributorResult {
  contributor: Contributor;
  created: boolean;
}

@Injectable()
export class ContributorsService {
  private readonly tierBook: VersionedSnapshot<TierBook>;

  constructor(
    private readonly repository: ContributorsRepository,
    private readonly audit: AuditService,
    private readonly payoutAddresses: PayoutAddressPolicy,
    private readonly webhooks: WebhookOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.tierBook = new VersionedSnapshot(
      {
        readVersion: () => this.repository.readTierVersion(),
        load: async () => {
          const { version, tiers } = await this.repository.loadAllTiers();
          return { version, value: createTierBook(tiers) };
        },
      },
      { checkIntervalMs: TIER_BOOK_CHECK_INTERVAL_MS },
    );
  }

  /** Every contributor's tier history; at most TIER_BOOK_CHECK_INTERVAL_MS behind other processes. */
  getTierBook(): Promise<TierBook> {
    return this.tierBook.get();
  }

  /** Reflects every registration and tier change committed before the call. */
  getTierBookFresh(): Promise<TierBook> {
    return this.tierBook.getFresh();
  }

  findById(id: string): Promise<Contributor | null> {
    return this.repository.findById(id);
  }

  async getById(id: string): Promise<Contributor> {
    const contributor = await this.repository.findById(id);
    if (!contributor) throw notFound('contributor');
    return contributor;
  }

  /**
   * Active contributors, ordered by id, for settlement. Every stored payout address was validated
   * and checksummed on write; balances and the minimum payout are the settlement's business.
   */
  listForSettlement(): Promise<Contributor[]> {
    return this.repository.listActive();
  }

  /**
   * For the payout sender, inside the transaction that commits a signed payout: each payee's
   * status and address as they are now, locked until that commit (see the repository).
   */
  lockPayees(client: SqlClient, ids: readonly string[]): Promise<Map<string, PayeeState>> {
    return this.repository.lockPayees(client, ids);
  }

  /** For the usage audit, in its transaction: flagged contributors' payouts wait for a review. */
  markUnderReview(client: SqlClient, ids: readonly string[], since: Date): Promise<void> {
    return this.repository.markUnderReview(client, ids, since);
  }

  /** For the usage audit's review, in its transaction: ends the hold ("suspend" also suspends). */
  applyReview(client: SqlClient, id: string, decision: 'clear' | 'suspend', at: Date) {
    return this.repository.applyReview(client, id, decision === 'suspend', at);
  }

  /** Creates or updates; a tier change applies to events that occur from now on. */
  async putContributor(actor: Principal, command: PutContributorCommand): Promise<PutContributorResult> {
    // A new or changed address is checked before the transaction (the contract-code check asks the
    // chain); the transaction checks again if the row changed meanwhile. An unchanged address is
    // not re-checked here: a tier or status change must always be possible, and every line is
    // screened again when it is sent.
    const before = await this.repository.findById(command.id);
    let checked: Address | null = null;
    if (before?.payoutAddress !== command.payoutAddress) {
      await this.payoutAddresses.assertAcceptable(command.payoutAddress, { allowContract: command.allowContract });
      checked = command.payoutAddress;
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await this.repository.transaction((tx) => this.writeContributor(tx, actor, command, checked));
        this.tierBook.invalidate();
        return result;
      } catch (error) {
        if (!isContributorIdConflict(error)) throw error;
        if (attempt >= ID_CONFLICT_ATTEMPTS_MAX) throw new DomainError('conflict', 'a concurrent request registered this contributor; retry');
      }
    }
  }

  private async writeContributor(tx: PrismaTx, actor: Principal, command: PutContributorCommand, checked: Address | null): Promise<PutContributorResult> {
    const now = new Date();
    const existing = await this.repository.findForUpdate(tx, command.id);
    if (existing?.payoutAddress !== command.payoutAddress && checked !== command.payoutAddress) {
      await this.payoutAddresses.assertAcceptable(command.payoutAddress, { allowContract: command.allowContract });
    }
    const contractAllowed = command.allowContract === true && existing?.payoutAddress !== command.payoutAddress ? { allow_contract: true } : {};
    if (!existing) {
      const created = await this.repository.create(tx, {
        id: command.id,
        tier: command.tier,
        payoutAddress: command.payoutAddress,
        status: command.status ?? 'active',
        // First setting: unproven until a proof, and no cool-down (nothing was changed).
        payoutAddressProvenAt: null,
        payoutAddressChangedAt: null,
        createdAt: now,
        updatedAt: now,
      });
      await this.repository.insertTier(tx, command.id, command.tier, TIER_HISTORY_START);
      await this.audit.recordWithPrisma(tx, actor, { action: 'contributor.create', target: `contributor:${command.id}`, after: { ...auditView(created), ...contractAllowed } });
      return { contributor: created, created: true };
    }
    const clearsFlag = existing.flaggedReason !== null && (command.clearFlag === true || command.payoutAddress !== existing.payoutAddress);
    const addressChanged = command.payoutAddress !== existing.payoutAddress;
    const changes = {
      tier: command.tier,
      payoutAddress: command.payoutAddress,
      status: command.status ?? existing.status,
      flaggedReason: clearsFlag ? null : existing.flaggedReason,
      // An address set by PUT is not proven by anyone's signature; its change starts the cool-down.
      payoutAddressProvenAt: addressChanged ? null : existing.payoutAddressProvenAt,
      payoutAddressChangedAt: addressChanged ? now : existing.payoutAddressChangedAt,
    };
    const unchanged =
      changes.tier === existing.tier && changes.payoutAddress === existing.payoutAddress && changes.status === existing.status && !clearsFlag;
    // A replay of the same PUT writes nothing (no audit noise, updated_at unchanged).
    if (unchanged) return { contributor: existing, created: false };
    const updated = await this.repository.update(tx, command.id, { ...changes, updatedAt: now });
    if (changes.tier !== existing.tier) await this.repository.insertTier(tx, command.id, changes.tier, now);
    if (addressChanged) {
      const change = { contributorId: command.id, oldAddress: existing.payoutAddress, newAddress: command.payoutAddress, proven: false, changedAt: now };
      await this.webhooks.emit(prismaSqlRunner(tx), [addressChangedEvent(change, this.config.PAYOUT_ADDRESS_COOLDOWN_HOURS)]);
    }
    await this.audit.recordWithPrisma(tx, actor, {
      action: 'contributor.update',
      target: `contributor:${command.id}`,
      before: auditView(existing),
      after: { ...auditView(updated), tier_effective_from: changes.tier !== existing.tier ? now : undefined, ...contractAllowed },
    });
    return { contributor: updated, created: false };
  }
}

export function auditView(contributor: Contributor) {
  return { tier: contributor.tier, payout_address: contributor.payoutAddress, status: contributor.status, flagged_reason: contributor.flaggedReason };
}
