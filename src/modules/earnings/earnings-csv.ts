// Pure: an earnings report as RFC 4180 CSV (no csv library is installed; quoting is simple).
import { groupsByDay, groupsByModel } from './earnings-range.js';
import { sumsToJson, type EarningsReport } from './earnings-report.js';

const LINE_END = '\r\n';
// Spreadsheet programs run a cell that starts with one of these as a formula (CSV injection).
const FORMULA_LEAD = /^[=+\-@\t\r]/;

/** Quotes a field when it holds a comma, quote or line break; doubles inner quotes. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Free text (model names come from gateways) that a spreadsheet would run as a formula gets a
 * leading apostrophe, the usual neutralization; numbers and money are written as they are.
 */
export function csvTextField(value: string): string {
  return csvField(FORMULA_LEAD.test(value) ? `'${value}` : value);
}

export function renderEarningsCsv(report: EarningsReport): string {
  const byDay = groupsByDay(report.groupBy);
  const byModel = groupsByModel(report.groupBy);
  const header = [
    ...(byDay ? ['day'] : []),
    ...(byModel ? ['model'] : []),
    'events',
    'prompt_tokens',
    'completion_tokens',
    'official_usd',
    'earned_usd',
    // Added after the original columns, so readers by position keep working.
    'cached_tokens',
    'cache_write_tokens',
    'audio_tokens',
    'refunds',
    'refunded_usd',
    'clawed_back_usd',
    'net_earned_usd',
  ];
  const lines = [header.join(',')];
  for (const row of report.rows) {
    const sums = sumsToJson(row);
    lines.push(
      [
        ...(byDay ? [csvField(row.day ?? '')] : []),
        ...(byModel ? [csvTextField(row.model ?? '')] : []),
        String(sums.events),
        String(sums.prompt_tokens),
        String(sums.completion_tokens),
        sums.official_usd,
        sums.earned_usd,
        String(sums.cached_tokens),
        String(sums.cache_write_tokens),
        String(sums.audio_tokens),
        String(sums.refunds),
        sums.refunded_usd,
        sums.clawed_back_usd,
        sums.net_earned_usd,
      ].join(','),
    );
  }
  return lines.join(LINE_END) + LINE_END;
}

export function earningsCsvFilename(report: EarningsReport): string {
  const safeId = report.contributorId.replace(/[^A-Za-z0-9._-]/g, '_');
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return `earnings-${safeId}-${day(report.from)}-${day(report.to)}.csv`;
}
