import { DomainError } from '../../common/errors/index.js';
import { hasMonthEnded, parseStatementMonth, previousMonth } from './statement-month.js';

const NOW = new Date('2026-12-01T11:30:00Z');

function refusal(text: string): { message: string; field: string } {
  try {
    parseStatementMonth(text, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domain = error as DomainError;
    expect(domain.httpStatus).toBe(400);
    return { message: domain.message, field: (domain.details as Array<{ field: string }>)[0]!.field };
  }
  throw new Error(`expected ${text} to be refused`);
}

describe('statement month', () => {
  it.each([
    ['2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2024-02', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2000-01', '2000-01-01T00:00:00.000Z', '2000-02-01T00:00:00.000Z'],
  ])('%s covers [%s, %s)', (text, from, to) => {
    const period = parseStatementMonth(text, NOW);
    expect(period).toEqual({ month: text, from: new Date(from), to: new Date(to) });
  });

  it.each([
    ['2026-13', /between 01 and 12/],
    ['2026-00', /between 01 and 12/],
    ['1999-12', /year/],
    ['2026-1', /YYYY-MM/],
    ['2026/11', /YYYY-MM/],
    ['2026-11-01', /YYYY-MM/],
    ['november', /YYYY-MM/],
    ['', /YYYY-MM/],
    ['2027-01', /not begun/],
    ['9999-12', /not begun/],
  ])('refuses %s with a 400 naming month', (text, message) => {
    const { message: text_, field } = refusal(text);
    expect(field).toBe('month');
    expect(text_).toMatch(message);
  });

  it('knows the month before (across a year) and whether a month has ended', () => {
    expect(previousMonth(parseStatementMonth('2026-01', NOW)).month).toBe('2025-12');
    expect(hasMonthEnded(parseStatementMonth('2026-11', NOW), NOW)).toBe(true);
    expect(hasMonthEnded(parseStatementMonth('2026-12', NOW), NOW)).toBe(false);
    expect(hasMonthEnded(parseStatementMonth('2026-11', NOW), new Date('2026-12-01T00:00:00Z'))).toBe(true);
  });
});
