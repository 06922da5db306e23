import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import { assert, DomainError, notFound } from '../../../common/errors/index.js';
import { formatMicroUsdc, formatScaledDecimal, microUsdcToAtto } from '../../../common/money/index.js';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import { isUniqueViolation } from '../../../common/errors/database-errors.js';
import { DatabaseService, type SqlClient } from '../../../database/database.service.js';
import { AuditService } from '../../audit/audit.service.js';
import { ContributorsService } from '../../contributors/contributors.service.js';
import type { Principal } from '../../../common/auth/auth.types.js';
import { contributorPayable } from '../../ledger/account-codes.js';
import { settlementLineDraft, type JournalDraft } from '../../ledger/journal-kinds.js';
import { LedgerService } from '../../ledger/ledger.service.js';
import { PayoutAddressPolicy } from '../../payout-safety/payout-address-policy.service.js';
import { WebhookOutbox } from '../../webhooks/webhook-outbox.service.js';
import { settlementEvents } from './settlement-webhooks.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../../chain/payout-chain.provider.js';
import { byPayableAccountCode, decideLine, planSettlement, requiresApproval, settlementLimits, type SettlementLimits, type SettlementPlan } from './settlement-plan.js';
import { SettlementQueueProducer } from './settlement-queue.producer.js';
import { SettlementRepository } from './settlement.repository.js';
import { JOURNAL_SETTLEMENT_RESERVE, type PlannedLine, type SettlementCandidate, type SettlementRecord, type SettlementTrigger } from './settlement.types.js';

const NATIVE_DECIMALS = 18;
/** Settlements re-enqueued per sweep; more are picked up by the next one. */
const SWEEP_SETTLEMENTS_MAX = 100;

export interface CreateSettlementInput {
  trigger: SettlementTrigger;
  dryRun: boolean;
  /** The admin who asked (audited in the same transaction); absent for the scheduler. */
  actor?: Principal;
}

export type CreatedLine = PlannedLine & { id: string };
export type CreateSettlementResult =
  | { kind: 'created'; settlement: SettlementRecord; lines: CreatedLine[] }
  | { kind: 'empty' }
  | { kind: 'dry_run'; plan: SettlementPlan };

export interface HotWalletStatus {
  address: string;
  /** Decimal strings; null when the RPC could not be read (see error). */
  usdc: string | null;
  native: string | null;
  error?: string;
}

/** Rolls back the creating transaction when nobody qualifies (no empty settlement is kept). */
class NothingToSettle extends Error {}

function reserveDraft(line: CreatedLine): JournalDraft {
  return settlementLineDraft(JOURNAL_SETTLEMENT_RESERVE, { lineId: line.id, contributorId: line.contributorId, amountAtto: microUsdcToAtto(line.amountMicroUsdc) });
}

const openConflict = (openId: string | null) =>
  new DomainError('conflict', 'another settlement is still open; approve or finish it first', openId ? { settlement_id: openId } : undefined);

/** Creates and approves settlements; the payout sender sends them. */
@Injectable()
export class SettlementService {
  private readonly logger = new Logger('Settlement');
  private readonly limits: SettlementLimits;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    private readonly db: DatabaseService,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly contributors: ContributorsService,
    private readonly repository: SettlementRepository,
    private readonly producer: SettlementQueueProducer,
    private readonly webhooks: WebhookOutbox,
    private readonly payoutAddresses: PayoutAddressPolicy,
  ) {
    this.limits = settlementLimits(config);
  }

  async createSettlement(input: CreateSettlementInput): Promise<CreateSettlementResult> {
    if (input.dryRun) {
      const candidates = await this.findCandidates();
      return { kind: 'dry_run', plan: planSettlement({ candidates, limits: this.limits }) };
    }
    this.chain.require();
    const open = await this.repository.findOpen();
    if (open) throw openConflict(open.id);
    const id = randomUUID();
    let created: CreateSettlementResult & { kind: 'created' };
    try {
      created = await this.db.transaction((client) => this.createWithin(client, id, input));
    } catch (error) {
      if (error instanceof NothingToSettle) return { kind: 'empty' };
      // A concurrent run took the open slot between our check and our insert.
      if (isUniqueViolation(error, 'settlements_one_open')) throw openConflict(null);
      throw error;
    }
    this.logger.log(`settlement ${id} created: ${created.lines.length} lines, ${formatMicroUsdc(created.settlement.totalMicroUsdc)} USDC, ${created.settlement.status}`);
    if (created.settlement.status === 'queued') await this.producer.ensureSendJobQuietly(id);
    return created;
  }

  /** One transaction: open slot, locked payable balances in code order, lines, reserve entries, audit. */
  private async createWithin(client: SqlClient, id: string, input: CreateSettlementInput): Promise<CreateSettlementResult & { kind: 'created' }> {
    await this.repository.insertOpen(client, { id, trigger: input.trigger });
    const candidates = (await this.findCandidates()).sort(byPayableAccountCode);
    const lines: CreatedLine[] = [];
    let totalMicroUsdc = 0n;
    for (const candidate of candidates) {
      // Locked, then re-read: the amount comes from the balance no concurrent posting can change.
      const locked = await this.ledger.lockAccount(client, contributorPayable(candidate.contributorId));
      const decision = decideLine({ payableAtto: locked.balanceAtto, totalSoFarMicroUsdc: totalMicroUsdc, linesSoFar: lines.length, limits: this.limits });
      if (decision.kind === 'stop') break;
      if (decision.kind === 'skip') continue;
      lines.push({ id: randomUUID(), contributorId: candidate.contributorId, payoutAddress: getAddress(candidate.payoutAddress), amountMicroUsdc: decision.amountMicroUsdc });
      totalMicroUsdc += decision.amountMicroUsdc;
    }
    if (lines.length === 0) throw new NothingToSettle();
    await this.repository.insertLines(client, id, lines);
    const written = await this.ledger.post(client, lines.map(reserveDraft));
    assert(written.size === lines.length, 'a settlement_reserve entry already existed');
    const approval = requiresApproval(totalMicroUsdc, this.limits);
    const status = approval ? 'pending_approval' : 'queued';
    await this.repository.completeCreation(client, { id, status, payoutCount: lines.length, totalMicroUsdc, requiresApproval: approval });
    if (input.actor) {
      await this.audit.recordWithSql(client, input.actor, {
        action: 'settlement.create',
        target: id,
        after: { status, payout_count: lines.length, total_usdc: formatMicroUsdc(totalMicroUsdc) },
      });
    }
    const settlement = (await this.repository.findById(id, client))!;
    const webhookLines = lines.map((l) => ({ ...l, settlementId: id, status: 'queued' as const, txHash: null }));
    const now = new Date();
    await this.webhooks.emit(client, [
      ...settlementEvents('settlement.created', settlement, webhookLines, now),
      ...(approval ? settlementEvents('settlement.pending_approval', settlement, webhookLines, now) : []),
    ]);
    return { kind: 'created', settlement, lines };
  }

  /**
   * Contributors who may be paid: active (the registry's list), not flagged, with a valid payout
   * address the payout policy does not refuse (zero, token, batch contract, hot wallet, deny list)
   * and a payable balance read at least the minimum. Read outside the creating transaction; each
   * balance is locked and read again before a line is made from it. Status and address are
   * checked again when each line is sent (payout/payee-screen.ts).
   */
  private async findCandidates(): Promise<SettlementCandidate[]> {
    const screen = this.payoutAddresses.screener();
    const contributors = (await this.contributors.listForSettlement()).filter(
      (c) => c.status === 'active' && c.flaggedReason === null && isAddress(c.payoutAddress, { strict: false }) && screen(c.payoutAddress) === null,
    );
    const balances = await this.ledger.balances(contributors.map((c) => contributorPayable(c.id)));
    const candidates: SettlementCandidate[] = [];
    for (const c of contributors) {
      const payableAtto = balances.get(contributorPayable(c.id))?.balanceAtto ?? 0n;
      if (payableAtto >= this.limits.minPayoutAtto) candidates.push({ contributorId: c.id, payoutAddress: getAddress(c.payoutAddress), payableAtto });
    }
    return candidates;
  }

  async approve(id: string, actor: Principal): Promise<SettlementRecord> {
    const settlement = await this.db.transaction(async (client) => {
      const current = await this.repository.lockById(client, id);
      if (!current) throw notFound('settlement');
      if (current.status !== 'pending_approval') {
        throw new DomainError('conflict', `settlement is ${current.status}; only a pending_approval settlement can be approved`);
      }
      await this.repository.markApproved(client, id, actor.keyId);
      await this.audit.recordWithSql(client, actor, { action: 'settlement.approve', target: id, before: { status: current.status }, after: { status: 'queued' } });
      return (await this.repository.findById(id, client))!;
    });
    await this.producer.ensureSendJobQuietly(id);
    return settlement;
  }

  /** The scheduler's run: repair lost send jobs, then create (nothing when one is open). */
  async runScheduled(): Promise<{ created: boolean; settlementId: string | null; reason: string }> {
    await this.requeueSendable();
    if (!this.chain.client) return { created: false, settlementId: null, reason: this.chain.disabledReason ?? 'disabled' };
    try {
      const result = await this.createSettlement({ trigger: 'schedule', dryRun: false });
      if (result.kind !== 'created') return { created: false, settlementId: null, reason: 'nobody to pay' };
      return { created: true, settlementId: result.settlement.id, reason: result.settlement.status };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'conflict') return { created: false, settlementId: null, reason: 'an open settlement exists' };
      throw error;
    }
  }

  /** Every approved, unfinished settlement gets its send job (Redis may have lost it). */
  async requeueSendable(): Promise<number> {
    const ids = await this.repository.listSendable(SWEEP_SETTLEMENTS_MAX);
    for (const id of ids) await this.producer.ensureSendJob(id);
    return ids.length;
  }

  /**
   * Approved settlements not yet sending (`queued`) whose send job is missing get one (the finality
   * job, every 15 s). A `submitting` one has had its job run (its finished job may be trimmed from
   * Redis): the finality watch and the worker's start look after it, never a second send here.
   */
  async addMissingSendJobs(): Promise<number> {
    const ids = await this.repository.listSendable(SWEEP_SETTLEMENTS_MAX, ['queued']);
    let added = 0;
    for (const id of ids) if (await this.producer.addSendJobIfMissing(id)) added += 1;
    return added;
  }

  /** For the admin overview per day: USDC paid out by UTC day of confirmation. */
  paidMicroUsdcPerDay(fromDay: string, toDay: string): Promise<Map<string, bigint>> {
    return this.repository.paidMicroUsdcPerDay(fromDay, toDay);
  }

  /** For the admin overview: the newest settlement, API-shaped, or null. */
  async lastSettlementSummary(): Promise<{ settlement_id: string; status: string; trigger: string; payout_count: number; total_usdc: string; created_at: string; completed_at: string | null } | null> {
    const last = await this.repository.findLatest();
    if (!last) return null;
    return {
      settlement_id: last.id,
      status: last.status,
      trigger: last.trigger,
      payout_count: last.payoutCount,
      total_usdc: formatMicroUsdc(last.totalMicroUsdc),
      created_at: last.createdAt.toISOString(),
      completed_at: last.completedAt?.toISOString() ?? null,
    };
  }

  /** For the admin overview: hot wallet balances as decimal strings; null when settlement is disabled. */
  async hotWalletStatus(): Promise<HotWalletStatus | null> {
    const client = this.chain.client;
    if (!client) return null;
    try {
      const wallet = await client.readHotWallet();
      return { address: wallet.address, usdc: formatMicroUsdc(wallet.usdcMicroUsdc), native: formatScaledDecimal(wallet.nativeWei, NATIVE_DECIMALS) };
    } catch (error) {
      return { address: client.hotWalletAddress, usdc: null, native: null, error: `RPC unavailable: ${(error as Error).message.split('\n')[0]}` };
    }
  }
}
