import { DomainError } from '../../common/errors/index.js';
import { parseDayBoundary, resolveEarningsRange } from './earnings-range.js';

const NOW = new Date('2026-11-29T15:30:00Z');

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return ((error as DomainError).details as Array<{ field: string }>)[0]?.field;
  }
  throw new Error('expected a validation error');
}

describe('earnings range', () => {
  it.each([
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T00:00:00Z', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
    ['2026-10-31T20:00:00-04:00', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T02:00:00+02:00', '2026-11-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('accepts %s as a UTC day boundary', (text, iso) => {
    expect(parseDayBoundary(text, 'from').toISOString()).toBe(iso);
  });

  it.each([
    ['2026-11-01T10:00:00Z', /UTC day boundary/],
    ['2026-11-01T00:00:00.5Z', /UTC day boundary/],
    ['2026-11-01T00:00:00+01:00', /UTC day boundary/],
    ['2026-02-30', /calendar date/],
    ['2025-02-29', /calendar date/],
    ['2026-13-01', /calendar date/],
    ['1999-12-31', /year/],
    ['yesterday', /YYYY-MM-DD/],
    ['2026-11-01T00:00:00', /YYYY-MM-DD/],
    ['1730419200', /YYYY-MM-DD/],
  ])('refuses %s', (text, message) => {
    expect(() => parseDayBoundary(text, 'to')).toThrow(DomainError);
    try {
      parseDayBoundary(text, 'to');
    } catch (error) {
      const details = (error as DomainError).details as Array<{ field: string; message: string }>;
      expect(details[0]).toMatchObject({ field: 'to' });
      expect(details[0]!.message).toMatch(message);
    }
  });

  it('defaults to the last 30 days including today', () => {
    const range = resolveEarningsRange({ now: NOW, rangeDaysMax: 366 });
    expect(range.to.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(range.from.toISOString()).toBe('2026-10-31T00:00:00.000Z');
  });

  it('defaults from to 30 days before a given to', () => {
    const range = resolveEarningsRange({ to: '2026-02-01', now: NOW, rangeDaysMax: 366 });
    expect(range.from.toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });

  it('allows an empty range and exactly the longest range', () => {
    expect(resolveEarningsRange({ from: '2026-01-01', to: '2026-01-01', now: NOW, rangeDaysMax: 366 }).from.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(() => resolveEarningsRange({ from: '2025-01-01', to: '2026-01-02', now: NOW, rangeDaysMax: 366 })).not.toThrow();
  });

  it('refuses from after to and ranges over the limit, naming the field', () => {
    expect(fieldOf(() => resolveEarningsRange({ from: '2026-01-02', to: '2026-01-01', now: NOW, rangeDaysMax: 366 }))).toBe('from');
    expect(fieldOf(() => resolveEarningsRange({ from: '2025-01-01', to: '2026-01-03', now: NOW, rangeDaysMax: 366 }))).toBe('to');
    expect(fieldOf(() => resolveEarningsRange({ from: '2026-01-01', to: '2026-01-09', now: NOW, rangeDaysMax: 7 }))).toBe('to');
  });
});
