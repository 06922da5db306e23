import { describe, expect, it } from 'vitest';
import { addDays, explorerTxUrl, formatCount, formatTimestamp, lastDays, shortHash } from './format';

describe('format helpers', () => {
  it('formats timestamps in UTC without the browser time zone', () => {
    expect(formatTimestamp('2026-11-29T10:00:05.123Z')).toBe('2026-11-29 10:00:05 UTC');
    expect(formatTimestamp(null)).toBe('—');
  });

  it('builds the explorer link from the CHAIN_EXPLORER_TX_URL template', () => {
    expect(explorerTxUrl('https://etherscan.io/tx/{tx_hash}', '0xabc')).toBe('https://etherscan.io/tx/0xabc');
    expect(explorerTxUrl('https://scan.example/tx/', '0xabc')).toBe('https://scan.example/tx/0xabc');
    expect(explorerTxUrl(null, '0xabc')).toBeNull();
  });

  it('computes UTC day ranges: [from, to) with today included', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(lastDays(30, new Date('2026-12-01T23:59:59Z'))).toEqual({ from: '2026-11-02', to: '2026-12-02' });
  });

  it('shortens hashes and groups counts', () => {
    expect(shortHash('0x1234567890abcdef1234567890abcdef')).toBe('0x123456…abcdef');
    expect(shortHash('0x1234')).toBe('0x1234');
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});
