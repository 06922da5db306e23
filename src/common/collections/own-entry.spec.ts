import { ownEntry } from './own-entry.js';

describe('ownEntry', () => {
  const table: Readonly<Record<string, number>> = { a: 1 };

  it('returns own entries', () => {
    expect(ownEntry(table, 'a')).toBe(1);
    expect(ownEntry(table, 'b')).toBeUndefined();
  });

  it.each(Object.getOwnPropertyNames(Object.prototype))('never returns the inherited %s', (name) => {
    expect(ownEntry(table, name)).toBeUndefined();
  });
});
