import { csvField, csvTextField, renderEarningsCsv } from './earnings-csv.js';
import type { EarningsReport } from './earnings-report.js';

const sums = { events: 3n, promptTokens: 1200n, completionTokens: 350n, cachedTokens: 200n, cacheWriteTokens: 100n, audioTokens: 40n, officialAtto: 6_500_000_000_000_000n, earnedAtto: 7_150_000_000_000_000n, refunds: 1n, refundedAtto: 1_300_000_000_000_000n, clawedBackAtto: 1_100_000_000_000_000n };

function report(groupBy: EarningsReport['groupBy'], rows: EarningsReport['rows']): EarningsReport {
  return { contributorId: 'c1', from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-03T00:00:00Z'), groupBy, totals: sums, rows };
}

describe('earnings CSV', () => {
  it('quotes only fields that need it and doubles inner quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('neutralizes text that a spreadsheet would run as a formula', () => {
    expect(csvTextField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvTextField('@cmd')).toBe("'@cmd");
    expect(csvTextField('openai/gpt-4o')).toBe('openai/gpt-4o');
  });

  it('writes a header and one line per row with exact decimal money, CRLF line ends', () => {
    const csv = renderEarningsCsv(report('day,model', [{ day: '2026-11-01', model: 'm,1', ...sums }]));
    expect(csv).toBe(
      'day,model,events,prompt_tokens,completion_tokens,official_usd,earned_usd,cached_tokens,cache_write_tokens,audio_tokens,refunds,refunded_usd,clawed_back_usd,net_earned_usd\r\n' +
        '2026-11-01,"m,1",3,1200,350,0.0065,0.00715,200,100,40,1,0.0013,0.0011,0.00605\r\n',
    );
  });

  it('has only the grouped columns', () => {
    expect(renderEarningsCsv(report('model', [])).split('\r\n')[0]).toBe('model,events,prompt_tokens,completion_tokens,official_usd,earned_usd,cached_tokens,cache_write_tokens,audio_tokens,refunds,refunded_usd,clawed_back_usd,net_earned_usd');
    expect(renderEarningsCsv(report('day', [])).split('\r\n')[0]).toBe('day,events,prompt_tokens,completion_tokens,official_usd,earned_usd,cached_tokens,cache_write_tokens,audio_tokens,refunds,refunded_usd,clawed_back_usd,net_earned_usd');
  });
});
