// The catalogue's builders give exactly the entries the services built by hand before it existed
// (the expected values below are those hand-built drafts, written out).
import fc from 'fast-check';
import { BOOKED_KIND_BY_JOURNAL_KIND, STATEMENT_LINE_KINDS } from '../statements/statement.js';
import { assertBalanced } from './journal-draft.js';
import {
  contributorAdjustmentDraft,
  contributorAdjustmentRef,
  CONTRIBUTOR_ADJUSTMENT_REF_PREFIX,
  earningsMaturedDraft,
  isJournalKind,
  JOURNAL_KINDS,
  refundDraft,
  refundRef,
  REFUND_REF_PREFIX,
  settlementLineDraft,
  SETTLEMENT_LINE_KINDS,
  usageDraft,
  userCreditDraft,
  userCreditRef,
  USER_CREDIT_REF_PREFIX,
} from './journal-kinds.js';

/** An expected entry, postings as [account code, amount] pairs. */
const entry = (kind: string, ref: string, memo: string | null, postings: Array<[string, bigint]>) => ({
  kind,
  ref,
  ...(memo === null ? {} : { memo }),
  postings: postings.map(([accountCode, amountAtto]) => ({ accountCode, amountAtto })),
});

const atto = fc.bigInt({ min: 1n, max: 10n ** 30n });
const id = fc.uuid();

describe('journal catalogue', () => {
  it('lists each kind once, and the statement mapping places every kind', () => {
    expect(new Set(JOURNAL_KINDS).size).toBe(JOURNAL_KINDS.length);
    expect(Object.keys(BOOKED_KIND_BY_JOURNAL_KIND).sort()).toEqual([...JOURNAL_KINDS].sort());
    expect(STATEMENT_LINE_KINDS).toEqual(['settlement_paid', 'settlement_reorged']);
    expect(isJournalKind('usage')).toBe(true);
    expect(isJournalKind('payout')).toBe(false);
  });

  it('builds refs as the journal has always stored them', () => {
    expect(userCreditRef('r1')).toBe('user_credit:r1');
    expect(contributorAdjustmentRef('r1')).toBe('contributor_adjustment:r1');
    expect(refundRef('f1')).toBe('refund:f1');
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (reference) => {
        expect(userCreditRef(reference)).toBe(USER_CREDIT_REF_PREFIX + reference);
        expect(contributorAdjustmentRef(reference)).toBe(CONTRIBUTOR_ADJUSTMENT_REF_PREFIX + reference);
        expect(refundRef(reference)).toBe(REFUND_REF_PREFIX + reference);
      }),
    );
  });

  it('usage: the user pays the charge, split payout (payable, or pending while maturing) + margin', () => {
    fc.assert(
      fc.property(id, id, id, atto, atto, fc.boolean(), (eventId, userId, contributorId, payoutAtto, marginAtto, payoutMaturing) => {
        const chargeAtto = payoutAtto + marginAtto;
        const draft = usageDraft({ eventId, userId, contributorId, chargeAtto, payoutAtto, marginAtto, payoutMaturing });
        expect(draft).toEqual({
          kind: 'usage',
          ref: eventId,
          postings: [
            { accountCode: `user:${userId}`, amountAtto: -chargeAtto },
            { accountCode: `contributor:${contributorId}:${payoutMaturing ? 'pending' : 'payable'}`, amountAtto: payoutAtto },
            { accountCode: 'platform:revenue', amountAtto: marginAtto },
          ],
        });
        assertBalanced(draft);
      }),
    );
  });

  it("user credit: a top-up from external funding, a negative credit an 'adjustment' against platform:adjustments", () => {
    expect(userCreditDraft({ reference: 'ref-1', userId: 'u1', amountAtto: 5n, memo: 'why' })).toEqual(
      entry('topup', 'user_credit:ref-1', 'why', [['user:u1', 5n], ['external:funding', -5n]]),
    );
    expect(userCreditDraft({ reference: 'ref-2', userId: 'u1', amountAtto: -7n, memo: 'chargeback' })).toEqual(
      entry('adjustment', 'user_credit:ref-2', 'chargeback', [['user:u1', -7n], ['platform:adjustments', 7n]]),
    );
    expect(userCreditDraft({ reference: 'ref-3', userId: 'u1', amountAtto: 1n }).memo).toBeUndefined();
  });

  it("contributor adjustment: the contributor's payable against platform:adjustments, signed", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), id, fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).filter((a) => a !== 0n), (reference, contributorId, amountAtto) => {
        expect(contributorAdjustmentDraft({ reference, contributorId, amountAtto, memo: 'reason' })).toEqual({
          kind: 'adjustment',
          ref: `contributor_adjustment:${reference}`,
          postings: [
            { accountCode: `contributor:${contributorId}:payable`, amountAtto },
            { accountCode: 'platform:adjustments', amountAtto: -amountAtto },
          ],
          memo: 'reason',
        });
      }),
    );
  });

  it('refund: user credited back, clawback from pending first then payable, margin reversed', () => {
    expect(refundDraft({ refundId: 'f1', eventId: 'e1', userId: 'u1', contributorId: 'c1', amountAtto: 130n, clawbackAtto: 110n, clawbackPendingAtto: 40n, reason: 'r' })).toEqual(
      entry('refund', 'refund:f1', 'event e1: r', [
        ['user:u1', 130n],
        ['contributor:c1:pending', -40n],
        ['contributor:c1:payable', -70n],
        ['platform:revenue', -20n],
      ]),
    );
    expect(refundDraft({ refundId: 'f2', eventId: 'e1', userId: 'u1', contributorId: 'c1', amountAtto: 13n, clawbackAtto: 11n, reason: 'x'.repeat(600) }).postings).toEqual([
      { accountCode: 'user:u1', amountAtto: 13n },
      { accountCode: 'contributor:c1:payable', amountAtto: -11n },
      { accountCode: 'platform:revenue', amountAtto: -2n },
    ]);
    expect(refundDraft({ refundId: 'f2', eventId: 'e1', userId: 'u1', contributorId: 'c1', amountAtto: 13n, clawbackAtto: 11n, reason: 'x'.repeat(600) }).memo).toHaveLength(500);
    expect(() => refundDraft({ refundId: 'f3', eventId: 'e1', userId: 'u1', contributorId: 'c1', amountAtto: 13n, clawbackAtto: 14n, reason: 'r' })).toThrow(/clawback/);
  });

  it('earnings matured: pending -> payable, one entry per contributor and day', () => {
    expect(earningsMaturedDraft({ contributorId: 'c1', maturedThroughDay: '2026-11-30', amountAtto: 9n })).toEqual(
      entry('earnings_matured', 'c1:2026-11-30', 'earnings through 2026-11-30 matured', [
        ['contributor:c1:pending', -9n],
        ['contributor:c1:payable', 9n],
      ]),
    );
    expect(() => earningsMaturedDraft({ contributorId: 'c1', maturedThroughDay: '2026-11-30', amountAtto: 0n })).toThrow(/positive/);
  });

  it('settlement lines: reserve payable -> in_settlement, paid in_settlement -> paid, failed back to payable, reorged paid -> payable', () => {
    const moves = {
      settlement_reserve: ['payable', 'in_settlement'],
      settlement_paid: ['in_settlement', 'paid'],
      settlement_failed: ['in_settlement', 'payable'],
      settlement_reorged: ['paid', 'payable'],
    } as const;
    expect(Object.keys(moves)).toEqual([...SETTLEMENT_LINE_KINDS]);
    for (const kind of SETTLEMENT_LINE_KINDS) {
      const [from, to] = moves[kind];
      expect(settlementLineDraft(kind, { lineId: 'l1', contributorId: 'c1', amountAtto: 10n ** 12n })).toEqual({
        kind,
        ref: 'l1',
        postings: [
          { accountCode: `contributor:c1:${from}`, amountAtto: -(10n ** 12n) },
          { accountCode: `contributor:c1:${to}`, amountAtto: 10n ** 12n },
        ],
      });
    }
  });
});
