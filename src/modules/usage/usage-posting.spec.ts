import { parseMultiplier, parseUsdToAtto } from '../../common/money/index.js';
import type { PriceBook, PriceVersion } from '../pricing/pricing.types.js';
import { normalizeEvent } from './usage-event.js';
import { planEvent, type Multipliers } from './usage-planner.js';
import { usagePosting } from './usage-posting.js';
import type { PlannedEvent } from './usage.types.js';

const multipliers: Multipliers = {
  userMarkup: parseMultiplier('1.3'),
  payoutByTier: { standard: parseMultiplier('1.1'), premium: parseMultiplier('1.2') },
};
const price: PriceVersion = {
  id: 7n,
  model: 'm',
  inputAttoPerMtok: parseUsdToAtto('2.5', { decimalsMax: 6 }),
  outputAttoPerMtok: parseUsdToAtto('10', { decimalsMax: 6 }),
  cachedInputAttoPerMtok: null,
  effectiveFrom: new Date('2026-01-01T00:00:00Z'),
};
const book: PriceBook = { priceAt: (model) => (model === 'm' ? price : null) };
const now = new Date('2026-11-29T12:00:00Z');

function planned(eventId: string, userId: string, contributorId: string, model = 'm'): PlannedEvent {
  const event = normalizeEvent(
    { event_id: eventId, user_id: userId, contributor_id: contributorId, model, usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 0, reasoning_tokens: 0 } } as never,
    { now, source: 'batch' },
  );
  return planEvent(event, { prices: book, tiers: { tierAt: () => 'standard' } }, multipliers)!;
}

describe('usagePosting', () => {
  it('lists one usage entry per priced event, with its three postings as array literals', () => {
    const posting = usagePosting([planned('e1', 'u1', 'c1'), planned('e2', 'u1', 'c2')]);
    const [kind, refs, codes, amounts] = posting.params;
    expect(kind).toBe('usage');
    expect(refs).toBe('{"e1","e2"}');
    expect(codes).toBe('{"{\\"user:u1\\",\\"contributor:c1:payable\\",\\"platform:revenue\\"}","{\\"user:u1\\",\\"contributor:c2:payable\\",\\"platform:revenue\\"}"}');
    // 1000 x 2.5 + 100 x 10 USD/Mtok = 0.0035 USD official; x1.3 charged, x1.1 paid out.
    expect(amounts).toBe('{"{-4550000000000000,3850000000000000,700000000000000}","{-4550000000000000,3850000000000000,700000000000000}"}');
    expect(posting.entries).toBe(2);
  });

  it('lists each tracked account once (never the untracked platform account), marking user accounts with their user', () => {
    const posting = usagePosting([planned('e1', 'u1', 'c1'), planned('e2', 'u1', 'c1'), planned('e3', 'u2', 'c1', 'unpriced-model')]);
    const [, , , , accountCodes, kinds, owners, userIds] = posting.params;
    expect(accountCodes).toBe('{"user:u1","contributor:c1:payable","user:u2"}');
    expect(kinds).toBe('{"user","contributor_payable","user"}');
    expect(owners).toBe('{"u1","c1","u2"}');
    expect(userIds).toBe('{"u1",NULL,"u2"}');
    expect(posting.entries).toBe(2);
    expect(posting.accounts).toBe(3);
  });

  it('is empty for no events', () => {
    expect(usagePosting([])).toEqual({ params: ['usage', '{}', '{}', '{}', '{}', '{}', '{}', '{}'], entries: 0, accounts: 0 });
  });
});
