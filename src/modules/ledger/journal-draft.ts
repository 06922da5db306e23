// A journal transaction before it is written: pure validation, no I/O.
import { assert } from '../../common/errors/index.js';
import { describeAccount } from './account-codes.js';
import { quoteArrayElement } from '../../database/sql.js';

import type { JournalDraft } from './journal-kinds.js';

// The draft's shape is defined with the kinds (journal-kinds.ts): its kind is a JournalKind.
export type { JournalDraft, JournalKind, Posting } from './journal-kinds.js';

export const POSTINGS_PER_ENTRY_MAX = 16;

/** Postings must balance before they are inserted (and the database checks again). */
export function assertBalanced(draft: JournalDraft): void {
  assert(draft.postings.length >= 2, `journal ${draft.kind}/${draft.ref} needs at least two postings`);
  assert(draft.postings.length <= POSTINGS_PER_ENTRY_MAX, `journal ${draft.kind}/${draft.ref} has too many postings`);
  let sum = 0n;
  for (const posting of draft.postings) {
    describeAccount(posting.accountCode);
    sum += posting.amountAtto;
  }
  assert(sum === 0n, `journal ${draft.kind}/${draft.ref} does not balance (sum ${sum})`);
}

export interface BalanceDelta {
  accountCode: string;
  balanceDeltaAtto: bigint;
  heldDeltaAtto: bigint;
}

/**
 * Net change per tracked account, sorted by code: accounts are always locked in that order, so
 * concurrent transactions never deadlock on them.
 */
export function netBalanceDeltas(drafts: JournalDraft[], heldDeltas: Map<string, bigint> = new Map()): BalanceDelta[] {
  const byCode = new Map<string, BalanceDelta>();
  const entry = (code: string) => {
    let delta = byCode.get(code);
    if (!delta) {
      delta = { accountCode: code, balanceDeltaAtto: 0n, heldDeltaAtto: 0n };
      byCode.set(code, delta);
    }
    return delta;
  };
  for (const draft of drafts) {
    for (const posting of draft.postings) {
      if (describeAccount(posting.accountCode).tracked) entry(posting.accountCode).balanceDeltaAtto += posting.amountAtto;
    }
  }
  for (const [code, heldDeltaAtto] of heldDeltas) entry(code).heldDeltaAtto += heldDeltaAtto;
  return [...byCode.values()].sort((a, b) => (a.accountCode < b.accountCode ? -1 : a.accountCode > b.accountCode ? 1 : 0));
}

/** A journal entry's account codes and amounts as the texts of two array literals ("{...}"). */
export function postingArrayLiterals(draft: JournalDraft): { codes: string; amounts: string } {
  let codes = '{';
  let amounts = '{';
  for (let j = 0; j < draft.postings.length; j += 1) {
    const posting = draft.postings[j]!;
    if (j > 0) {
      codes += ',';
      amounts += ',';
    }
    codes += quoteArrayElement(posting.accountCode);
    amounts += posting.amountAtto.toString();
  }
  return { codes: `${codes}}`, amounts: `${amounts}}` };
}
