// The soak's money and admin operations: holds released and raced, credits, refunds, price changes
// and reprices, payout address changes with ownership proofs, settlements and approvals, partition
// creation and archive, webhook receivers switched between healthy, slow and dead.
import { join } from 'node:path';
import { keccak256, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { REPO_ROOT } from '../lib/bench-stack.js';
import { sleep, spawnService } from '../lib/processes.js';
import type { SoakContext } from './soak-ops-context.js';
import { formatAtto, SoakRecord, usdToAtto } from './soak-record.js';
import { LATE_MODEL, type PlannedOp } from './soak-schedule.js';

const PARTITION_ATTEMPTS_MAX = 20;
const ARCHIVE_QUEUE_WAIT_POLLS = 120;
/** A new price version starts this long after the furthest instant the soak's clock may reach. */
const PRICE_CHANGE_LEAD_MS = 5 * 60_000 + 1_000;
export const LATE_PRICE = { input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3', effective_from: '2026-01-01T00:00:00Z' };

/** The deterministic payout key of a contributor's n-th address (0 = the one set at setup). */
export function payoutKey(seed: number, contributorId: string, n: number): Hex {
  return keccak256(toHex(`soak:${seed}:${contributorId}:${n}`));
}

/** A definitive answer other than these, to valid input, breaks "valid input is taken". */
export function expectStatus(ctx: SoakContext, what: string, answer: { status: number; json: any }, ok: number[]): boolean {
  ctx.checked('valid_input_accepted');
  if (ok.includes(answer.status)) return true;
  if (answer.status !== 0 && answer.status < 500) ctx.fail('valid_input_accepted', `${what}: HTTP ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
  return false;
}

export async function opHoldRelease(ctx: SoakContext, op: Extract<PlannedOp, { op: 'hold_release' }>): Promise<void> {
  const hold = await ctx.http.request('POST', '/v1/holds', { api: op.api, body: { hold_id: op.hold_id, user_id: op.user_id, amount_usd: op.amount_usd, expires_in_seconds: 3600 } });
  if (!expectStatus(ctx, `hold ${op.hold_id}`, hold, [200, 201, 402])) return;
  if (hold.status === 402) return;
  const release = await ctx.http.request('POST', `/v1/holds/${encodeURIComponent(op.hold_id)}/release`, { api: 1 - op.api });
  expectStatus(ctx, `release ${op.hold_id}`, release, [200]);
}

/** Four holds of one user at once, each a share of its available balance: together they may never pass it. */
export async function opHoldRace(ctx: SoakContext, op: Extract<PlannedOp, { op: 'hold_race' }>): Promise<void> {
  const balance = await ctx.http.request('GET', `/v1/users/${op.user_id}/balance`);
  if (balance.status !== 200) return;
  const availableAtto = usdToAtto(balance.json.available_usd as string);
  if (availableAtto <= 0n) return;
  const amountAtto = (availableAtto * BigInt(op.share_percent)) / 100n;
  const answers = await Promise.all(
    op.hold_ids.map((hold_id, i) => ctx.http.request('POST', '/v1/holds', { api: i, body: { hold_id, user_id: op.user_id, amount_usd: formatAtto(amountAtto), expires_in_seconds: 3600 } })),
  );
  const taken = op.hold_ids.filter((_, i) => answers[i]!.status === 201 || answers[i]!.status === 200);
  ctx.checked('holds_never_overspend');
  if (BigInt(taken.length) * amountAtto > availableAtto) {
    ctx.fail('holds_never_overspend', `user ${op.user_id}: ${taken.length} racing holds of ${formatAtto(amountAtto)} taken with ${formatAtto(availableAtto)} available`);
  }
  for (const [i, a] of answers.entries()) if (![200, 201, 402].includes(a.status)) expectStatus(ctx, `racing hold ${op.hold_ids[i]}`, a, [201]);
  for (const hold_id of taken) await ctx.http.request('POST', `/v1/holds/${encodeURIComponent(hold_id)}/release`);
}

/**
 * A credit: purchased, or a grant that expires (its expires_at from the machine's clock, which the
 * service reads: the soak's clock steps do not move it), or one the service must refuse and write
 * nothing for: an invalid grant (400) or an earlier reference with another amount (409).
 */
export async function opCredit(ctx: SoakContext, op: Extract<PlannedOp, { op: 'credit' }>): Promise<void> {
  if (op.conflict_of !== undefined) return creditConflict(ctx, op.conflict_of);
  const grant = op.grant ? { expires_at: new Date(Date.now() + op.grant.expires_in_ms).toISOString(), name: op.grant.name } : undefined;
  // A negative amount needs a reason: with one, only the grant rule refuses it.
  const body = { amount_usd: op.amount_usd, reference: op.reference, ...(op.invalid === 'negative_amount' ? { reason: 'soak' } : {}), ...(grant ? { grant } : {}) };
  const answer = await ctx.http.request('POST', `/v1/admin/users/${op.user_id}/credits`, { body });
  if (op.invalid !== undefined) return expectRefused(ctx, `invalid grant credit ${op.reference} (${op.invalid})`, answer, 400, op.reference, null);
  if (!expectStatus(ctx, `credit ${op.reference}`, answer, [200, 201])) return;
  ctx.record.confirmedCredits.set(op.reference, { user_id: op.user_id, amount_usd: op.amount_usd, ...(grant ? { grant } : {}) });
  if (grant) ctx.record.addGrant({ grantId: op.reference, userId: op.user_id, amountAtto: usdToAtto(op.amount_usd), expiresAtMs: Date.parse(grant.expires_at) });
  else ctx.record.addCredit(op.user_id, usdToAtto(op.amount_usd));
}

/** The same reference as a confirmed credit, one micro-dollar more: 409, and the credit as it was. */
async function creditConflict(ctx: SoakContext, reference: string): Promise<void> {
  const original = ctx.record.confirmedCredits.get(reference);
  if (!original) return; // its answer never came: the soak does not know what the service holds
  const amount_usd = formatAtto(usdToAtto(original.amount_usd) + 10n ** 12n);
  const answer = await ctx.http.request('POST', `/v1/admin/users/${original.user_id}/credits`, { body: { amount_usd, reference, ...(original.grant ? { grant: original.grant } : {}) } });
  await expectRefused(ctx, `conflicting replay of credit ${reference}`, answer, 409, reference, usdToAtto(original.amount_usd));
}

/**
 * A credit the service must refuse: that status, and nothing written for the reference (no credit,
 * or the original credit unchanged). A 5xx or no answer is judged elsewhere (retried, counted).
 */
async function expectRefused(ctx: SoakContext, what: string, answer: { status: number; json: any }, status: 400 | 409, reference: string, originalAtto: bigint | null): Promise<void> {
  if (answer.status === 0 || answer.status >= 500) return;
  ctx.checked('invalid_credit_refused');
  if (answer.status !== status) return ctx.fail('invalid_credit_refused', `${what}: HTTP ${answer.status} (expected ${status}) ${JSON.stringify(answer.json).slice(0, 300)}`);
  ctx.record.refusedCredits[status === 400 ? 'invalid' : 'conflict'] += 1;
  const stored = await ctx.stack.db
    .query<{ amount: string | null; grants: number }>('SELECT (SELECT amount_atto::text FROM user_credits WHERE reference = $1) AS amount, (SELECT count(*)::int FROM user_grants WHERE grant_id = $1) AS grants', [reference])
    .catch(() => null);
  if (stored === null) return; // Postgres restarting: the balances and grants invariants still see any write
  const row = stored.rows[0]!;
  const intact = originalAtto === null ? row.amount === null && row.grants === 0 : row.amount !== null && BigInt(row.amount) === originalAtto;
  if (!intact) ctx.fail('invalid_credit_refused', `${what}: answered ${status} but the database holds credit ${row.amount} and ${row.grants} grant(s) for ${reference}`);
}

export async function opRefund(ctx: SoakContext, op: Extract<PlannedOp, { op: 'refund' }>): Promise<void> {
  const event = ctx.record.events.get(op.event_id);
  const expected = event ? ctx.record.expected(event) : null;
  const refunded = ctx.record.refunded.get(op.event_id) ?? 0n;
  const remaining = expected ? expected.chargeAtto - refunded : 0n;
  const amountAtto = op.part === 'half' ? remaining / 2n : remaining;
  if (op.part === 'half' && amountAtto <= 0n) return;
  const body = { refund_id: op.refund_id, reason: 'soak', ...(op.part === 'half' ? { amount_usd: formatAtto(amountAtto) } : {}) };
  const answer = await ctx.http.request('POST', `/v1/admin/usage-events/${encodeURIComponent(op.event_id)}/refunds`, { body });
  // 404: not stored (yet), 422: unpriced or nothing left to refund; all valid answers.
  if (!expectStatus(ctx, `refund ${op.refund_id}`, answer, [201, 200, 404, 422])) return;
  if (answer.status !== 201 && answer.status !== 200) return;
  const answeredAtto = usdToAtto(answer.json.amount_usd as string);
  ctx.checked('refunds_exact');
  if (expected === null || answeredAtto !== amountAtto) {
    ctx.fail('refunds_exact', `refund ${op.refund_id} of ${op.event_id}: refunded ${formatAtto(answeredAtto)}, the soak expected ${formatAtto(amountAtto)}`);
  }
  ctx.record.refunded.set(op.event_id, refunded + answeredAtto);
  ctx.checked('refunds_exact');
  if (usdToAtto(answer.json.refunded_total_usd as string) !== refunded + answeredAtto) {
    ctx.fail('refunds_exact', `refund ${op.refund_id}: refunded_total ${answer.json.refunded_total_usd}, expected ${formatAtto(refunded + answeredAtto)}`);
  }
  if (expected) {
    // This refund's clawback: the total clawback after it minus the total before (api.md).
    const clawbackAtto = SoakRecord.clawback(refunded + answeredAtto, expected) - SoakRecord.clawback(refunded, expected);
    if (usdToAtto(answer.json.contributor_clawback_usd as string) !== clawbackAtto) {
      ctx.fail('refunds_exact', `refund ${op.refund_id}: contributor_clawback ${answer.json.contributor_clawback_usd}, expected ${formatAtto(clawbackAtto)}`);
    }
  }
}

async function postPrice(ctx: SoakContext, model: string, body: Record<string, string>, effectiveFromMs: number): Promise<void> {
  const answer = await ctx.http.request('POST', '/v1/admin/prices', { body: { model, ...body, effective_from: new Date(effectiveFromMs).toISOString() } });
  if (!expectStatus(ctx, `price ${model}`, answer, [200, 201])) return;
  ctx.record.addPrice(model, {
    effectiveFromMs,
    inputAttoPerMtok: usdToAtto(body.input_usd_per_mtok!),
    outputAttoPerMtok: usdToAtto(body.output_usd_per_mtok!),
    cachedAttoPerMtok: usdToAtto(body.cached_input_usd_per_mtok ?? body.input_usd_per_mtok!),
  });
}

/** A new version that starts after every instant any event was or may be sent at: no billed event changes. */
export async function opPriceChange(ctx: SoakContext, op: Extract<PlannedOp, { op: 'price_change' }>): Promise<void> {
  const effectiveFromMs = Math.max(Date.now() + PRICE_CHANGE_LEAD_MS, ctx.record.maxOccurredMs + 1_000);
  const { model: _model, op: _op, ...prices } = op;
  await postPrice(ctx, op.model, prices, effectiveFromMs);
}

export async function opLatePrice(ctx: SoakContext): Promise<void> {
  const { effective_from, ...prices } = LATE_PRICE;
  await postPrice(ctx, LATE_MODEL, prices, Date.parse(effective_from));
  ctx.record.latePriceStep = ctx.step;
}

export async function opReprice(ctx: SoakContext): Promise<void> {
  const startedAfterLate = ctx.record.latePriceStep !== null && ctx.record.latePriceStep < ctx.step;
  const answer = await ctx.http.request('POST', '/v1/admin/usage-events/reprice', { body: {} });
  if (expectStatus(ctx, 'reprice', answer, [200]) && startedAfterLate) ctx.record.repricedAfterLateStep = ctx.step;
}

export async function opAddressChange(ctx: SoakContext, op: Extract<PlannedOp, { op: 'address_change' }>): Promise<void> {
  const account = privateKeyToAccount(payoutKey(ctx.seed, op.contributor_id, op.key_index));
  // Recorded before it is sent: a settlement may pay it as soon as the change commits.
  const list = ctx.record.addresses.get(op.contributor_id) ?? [];
  list.push(account.address);
  ctx.record.addresses.set(op.contributor_id, list);
  const challenge = await ctx.http.request('GET', `/v1/contributors/${op.contributor_id}/payout-address/challenge?address=${account.address}`);
  if (!expectStatus(ctx, `challenge ${op.contributor_id}`, challenge, [200])) return;
  const signature = await account.signMessage({ message: challenge.json.message as string });
  const proof = await ctx.http.request('POST', `/v1/contributors/${op.contributor_id}/payout-address`, { body: { address: account.address, signature, nonce: challenge.json.nonce } });
  // 422 after a retry: the first send used the nonce up (the change is in); anything else is a failure.
  if (proof.status === 422 && proof.attempts > 1) return;
  expectStatus(ctx, `address proof ${op.contributor_id}`, proof, [200, 201]);
}

export async function opSettlement(ctx: SoakContext): Promise<void> {
  const answer = await ctx.http.request('POST', '/v1/admin/settlements', { body: {} });
  // 409/422: another settlement open, or nothing payable.
  if (!expectStatus(ctx, 'settlement', answer, [200, 201, 409, 422])) return;
  if (answer.json?.settlement_id) ctx.record.settlementIds.add(answer.json.settlement_id as string);
}

export async function opApprove(ctx: SoakContext): Promise<void> {
  const list = await ctx.http.request('GET', '/v1/admin/settlements?limit=50');
  if (list.status !== 200) return;
  for (const s of (list.json.data ?? []) as Array<{ settlement_id?: string; id?: string; status: string }>) {
    if (s.status !== 'pending_approval') continue;
    const id = s.settlement_id ?? s.id!;
    const answer = await ctx.http.request('POST', `/v1/admin/settlements/${id}/approve`, { body: {} });
    expectStatus(ctx, `approve ${id}`, answer, [200, 409]);
  }
}

/** What the worker's partition job does, racing the writers of that month. */
export async function opPartition(ctx: SoakContext, op: Extract<PlannedOp, { op: 'partition' }>): Promise<void> {
  for (let attempt = 1; attempt <= PARTITION_ATTEMPTS_MAX; attempt++) {
    const client = await ctx.stack.db.connect().catch(() => null);
    if (client === null) {
      await sleep(500);
      continue;
    }
    const ignore = () => undefined;
    client.on('error', ignore);
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL lock_timeout = 1000');
      await client.query('SELECT usage_events_ensure_partition($1::timestamptz)', [`${op.month}-01T00:00:00Z`]);
      await client.query('COMMIT');
      return;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (attempt === PARTITION_ATTEMPTS_MAX) ctx.log(`partition ${op.month}: ${(error as Error).message}`);
      await sleep(200 * attempt);
    } finally {
      client.off('error', ignore);
      client.release(true);
    }
  }
}

export async function opArchive(ctx: SoakContext, op: Extract<PlannedOp, { op: 'archive' }>): Promise<void> {
  // Events of the months about to be archived may still wait in the SDK outbox or the queue (a
  // late event for an archived month is refused by design): the soak lets them land first.
  await ctx.stack.sdk.flush();
  for (let i = 0; i < ARCHIVE_QUEUE_WAIT_POLLS; i++) {
    const c = await ctx.usageQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized').catch(() => null);
    if (c && (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) === 0) break;
    await sleep(500);
  }
  // The operator's CLI as a child process: it may meet a Postgres restart, and must not take the soak down with it.
  const archive = spawnService({
    name: 'archive',
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO_ROOT, 'scripts/archive.ts'), '--before', op.before, '--out', join(ctx.stack.runDir, 'archive')],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, DATABASE_URL: ctx.stack.databaseUrl },
    logPath: join(ctx.stack.runDir, 'archive.log'),
  });
  const exit = await archive.exited;
  // 0 archived (or nothing to archive), 2 refused (a month not settled yet): both fine.
  if (exit.code !== 0 && exit.code !== 2) ctx.log(`archive before ${op.before} ended with ${exit.signal ?? `exit ${exit.code}`} (see archive.log)`);
}

export function opWebhookMode(ctx: SoakContext, op: Extract<PlannedOp, { op: 'webhook_mode' }>): void {
  ctx.stack.webhooks.setMode(op.receiver, op.mode);
}

export const addressesOf = (ctx: SoakContext, contributorId: string): Address[] => ctx.record.addresses.get(contributorId) ?? [];
