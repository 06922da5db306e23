// The batched form of LedgerService.post, for a writer whose whole group commit is ONE statement
// (UsageRepository.insertEventsAndPost): the journal entries and the balance upsert as
// data-modifying CTEs it composes into its own WITH, and their array parameters. This file and
// ledger.repository.ts hold the only SQL that writes journal_entries or accounts.
import { assert } from '../../common/errors/index.js';
import { arrayLiteral } from '../../database/sql.js';
import { describeAccount, userAccount } from './account-codes.js';
import { assertBalanced, postingArrayLiterals, type JournalDraft } from './journal-draft.js';

/** Parameters postingCtes() reads, from `firstParam` on (see BatchedPosting.params). */
export const POSTING_CTE_PARAM_COUNT = 8;
/**
 * The CTE a composing statement must read to run after the balances (the lock order: accounts
 * first). It returns each account touched, after the update: code, kind, owner_id, balance_atto,
 * grants_until, spend_rollup.
 */
export const POSTED_BALANCES_CTE = 'accounts_upserted';
/** The CTE of the net balance change per account code (code, amount) the entries written make. */
export const BALANCE_DELTAS_CTE = 'balance_deltas';

/**
 * `je` inserts the entries whose ref is in `source`.`refColumn` (rows the composing statement
 * actually wrote: a replay posts nothing), `balance_deltas` sums the postings written, and
 * `accounts_upserted` adds them to the tracked accounts in code order (every user of `source`
 * gets a row, even at 0). Same rules as LedgerService.post: one entry per (kind, ref), balances
 * from the entries written, accounts locked in code order.
 */
export function postingCtes(input: { firstParam: number; source: string; refColumn: string; userColumn: string }): string {
  const $ = (offset: number) => `$${input.firstParam + offset}`;
  const { source, refColumn, userColumn } = input;
  return `je AS (
     INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto)
     SELECT ${$(0)}::text, x.ref, x.codes::text[], x.amounts::numeric[]
     FROM unnest(${$(1)}::text[], ${$(2)}::text[], ${$(3)}::text[]) AS x(ref, codes, amounts)
     JOIN ${source} ON ${source}.${refColumn} = x.ref
     ON CONFLICT (kind, ref) DO NOTHING
     RETURNING account_codes, amounts_atto
   ), ${BALANCE_DELTAS_CTE} AS (
     SELECT p.code, sum(p.amount) AS amount
     FROM je CROSS JOIN LATERAL unnest(je.account_codes, je.amounts_atto) AS p(code, amount)
     GROUP BY p.code
   ), ${POSTED_BALANCES_CTE} AS (
     -- Tracked accounts only (the parameter lists them); every billed user gets a row, even at 0.
     INSERT INTO accounts (code, kind, owner_id, tracked, balance_atto, held_atto)
     SELECT m.code, m.kind, m.owner, true, coalesce(d.amount, 0), 0
     FROM unnest(${$(4)}::text[], ${$(5)}::text[], ${$(6)}::text[], ${$(7)}::text[]) AS m(code, kind, owner, user_id)
     LEFT JOIN ${BALANCE_DELTAS_CTE} d ON d.code = m.code
     WHERE d.code IS NOT NULL OR m.user_id IN (SELECT ${userColumn} FROM ${source})
     ORDER BY m.code
     ON CONFLICT (code) DO UPDATE SET balance_atto = accounts.balance_atto + excluded.balance_atto
     RETURNING code, kind, owner_id, balance_atto, grants_until, spend_rollup
   )`;
}

export interface BatchedPosting {
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

/**
 * Pure. The parameters of postingCtes() for every item (a draft of `kind` for each item that
 * posts one, checked balanced; the statement keeps those of rows it wrote), and the tracked
 * accounts they may touch, each listed once. `userOf` names the user whose account must exist.
 */
export function batchedPostingParams<T>(input: { kind: string; items: readonly T[]; draftOf: (item: T) => JournalDraft | null; userOf: (item: T) => string }): BatchedPosting {
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
  for (const item of input.items) {
    const userId = input.userOf(item);
    track(userAccount(userId), userId);
    const draft = input.draftOf(item);
    if (!draft) continue;
    assertBalanced(draft);
    assert(draft.kind === input.kind, `batched posting of ${input.kind} got a ${draft.kind} entry`);
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
      input.kind,
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
