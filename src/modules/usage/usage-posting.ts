// The ledger side of a group commit written in one statement (UsageRepository.insertEventsAndPost):
// the usage journal entries and the tracked accounts they may touch, as array parameters. Pure.
import { arrayLiteral } from '../../database/sql.js';
import { describeAccount, userAccount } from '../ledger/account-codes.js';
import { assertBalanced, postingArrayLiterals } from '../ledger/journal-draft.js';
import { USAGE_JOURNAL_KIND, usageJournalDraft } from './usage-planner.js';
import type { PlannedEvent } from './usage.types.js';

export interface UsagePosting {
  /**
   * Journal kind; entry refs, codes and amounts (one array literal per entry); then the tracked
   * accounts: code, kind, owner, and the user id for a user's account (every billed user gets a
   * row, even at zero).
   */
  params: [kind: string, refs: string, codes: string, amounts: string, accountCodes: string, accountKinds: string, accountOwners: string, accountUserIds: string];
  entries: number;
  accounts: number;
}

interface AccountParam {
  kind: string;
  owner: string | null;
  userId: string | null;
}

/** Entries for every priced event planned (the statement keeps those of rows it inserted). */
export function usagePosting(planned: readonly PlannedEvent[]): UsagePosting {
  const refs: string[] = [];
  const codes: string[] = [];
  const amounts: string[] = [];
  const accounts = new Map<string, AccountParam>();
  const track = (code: string, userId: string | null) => {
    const known = accounts.get(code);
    if (known) {
      if (userId !== null) known.userId = userId;
      return;
    }
    const info = describeAccount(code);
    if (info.tracked) accounts.set(code, { kind: info.kind, owner: info.ownerId, userId });
  };
  for (const p of planned) {
    track(userAccount(p.event.userId), p.event.userId);
    const draft = usageJournalDraft(p);
    if (!draft) continue;
    assertBalanced(draft);
    refs.push(draft.ref);
    for (const posting of draft.postings) track(posting.accountCode, null);
    const literals = postingArrayLiterals(draft);
    codes.push(literals.codes);
    amounts.push(literals.amounts);
  }
  const accountCodes = [...accounts.keys()];
  const accountParams = [...accounts.values()];
  return {
    params: [
      USAGE_JOURNAL_KIND,
      arrayLiteral(refs),
      arrayLiteral(codes),
      arrayLiteral(amounts),
      arrayLiteral(accountCodes),
      arrayLiteral(accountParams.map((a) => a.kind)),
      arrayLiteral(accountParams.map((a) => a.owner)),
      arrayLiteral(accountParams.map((a) => a.userId)),
    ],
    entries: refs.length,
    accounts: accountCodes.length,
  };
}
