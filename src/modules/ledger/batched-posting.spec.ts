import { batchedPostingParams, postingCtes, POSTING_CTE_PARAM_COUNT } from './batched-posting.js';
import type { JournalDraft } from './journal-draft.js';

interface Item {
  ref: string;
  userId: string;
  contributorId: string;
  /** null: nothing to post (an unpriced event), but the user's account still gets a row. */
  chargeAtto: bigint | null;
}

// Priced at 0.0035 USD official: 1.3x charged, 1.1x paid out, the rest is margin.
const CHARGE = 4_550_000_000_000_000n;
const PAYOUT = 3_850_000_000_000_000n;
const draftOf = (item: Item): JournalDraft | null =>
  item.chargeAtto === null
    ? null
    : {
        kind: 'usage',
        ref: item.ref,
        postings: [
          { accountCode: `user:${item.userId}`, amountAtto: -item.chargeAtto },
          { accountCode: `contributor:${item.contributorId}:payable`, amountAtto: PAYOUT },
          { accountCode: 'platform:revenue', amountAtto: item.chargeAtto - PAYOUT },
        ],
      };
const params = (items: Item[]) => batchedPostingParams({ kind: 'usage', items, draftOf, userOf: (i) => i.userId });

describe('batchedPostingParams', () => {
  it('lists one entry per item that posts, with its postings as array literals', () => {
    const posting = params([
      { ref: 'e1', userId: 'u1', contributorId: 'c1', chargeAtto: CHARGE },
      { ref: 'e2', userId: 'u1', contributorId: 'c2', chargeAtto: CHARGE },
    ]);
    const [kind, refs, codes, amounts] = posting.params;
    expect(kind).toBe('usage');
    expect(refs).toBe('{"e1","e2"}');
    expect(codes).toBe('{"{\\"user:u1\\",\\"contributor:c1:payable\\",\\"platform:revenue\\"}","{\\"user:u1\\",\\"contributor:c2:payable\\",\\"platform:revenue\\"}"}');
    expect(amounts).toBe('{"{-4550000000000000,3850000000000000,700000000000000}","{-4550000000000000,3850000000000000,700000000000000}"}');
    expect(posting.entries).toBe(2);
  });

  it('lists each tracked account once (never the untracked platform account), marking user accounts with their user', () => {
    const posting = params([
      { ref: 'e1', userId: 'u1', contributorId: 'c1', chargeAtto: CHARGE },
      { ref: 'e2', userId: 'u1', contributorId: 'c1', chargeAtto: CHARGE },
      { ref: 'e3', userId: 'u2', contributorId: 'c1', chargeAtto: null },
    ]);
    const [, , , , accountCodes, kinds, owners, userIds] = posting.params;
    expect(accountCodes).toBe('{"user:u1","contributor:c1:payable","user:u2"}');
    expect(kinds).toBe('{"user","contributor_payable","user"}');
    expect(owners).toBe('{"u1","c1","u2"}');
    expect(userIds).toBe('{"u1",NULL,"u2"}');
    expect(posting.entries).toBe(2);
    expect(posting.accounts).toBe(3);
  });

  it('is empty for no items', () => {
    expect(params([])).toEqual({ params: ['usage', '{}', '{}', '{}', '{}', '{}', '{}', '{}'], entries: 0, accounts: 0 });
  });

  it('refuses an unbalanced entry or one of another kind before anything is written', () => {
    const item = { ref: 'e1', userId: 'u1', contributorId: 'c1', chargeAtto: CHARGE };
    expect(() => batchedPostingParams({ kind: 'usage', items: [item], draftOf: (i) => ({ ...draftOf(i)!, postings: draftOf(i)!.postings.slice(0, 2) }), userOf: (i) => i.userId })).toThrow(/does not balance/);
    expect(() => batchedPostingParams({ kind: 'usage', items: [item], draftOf: (i) => ({ ...draftOf(i)!, kind: 'topup' }), userOf: (i) => i.userId })).toThrow(/got a topup entry/);
  });
});

describe('postingCtes', () => {
  it('reads exactly its parameters, numbered from the first one given', () => {
    const sql = postingCtes({ firstParam: 24, source: 'ins', refColumn: 'event_id', userColumn: 'user_id' });
    const used = [...new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
    expect(used).toEqual(Array.from({ length: POSTING_CTE_PARAM_COUNT }, (_, i) => 24 + i));
  });
});
