import { statementFormatFor } from './statement-format.js';

describe('statement format from Accept', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['text/csv', 'csv'],
    ['application/pdf', 'pdf'],
    ['text/csv; charset=utf-8', 'csv'],
    ['application/pdf;q=0.5, text/csv;q=0.9', 'csv'],
    ['text/csv;q=0, application/pdf', 'pdf'],
    ['text/html, application/pdf, */*;q=0.8', 'pdf'],
    ['application/json, text/csv', 'json'],
    ['TEXT/CSV', 'csv'],
    ['image/png', 'json'],
    ['text/csv;q=abc', 'json'],
  ] as const)('%s -> %s', (accept, format) => {
    expect(statementFormatFor(accept)).toBe(format);
  });
});
