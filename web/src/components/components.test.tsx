import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { queryKeys } from '../api/endpoints';
import { TxLink } from './tx-link';
import { DataTable } from './data-table';
import { moneyColumn, textColumn } from './columns';
import { isIsoDay } from './date-input';
import { Money } from './money';
import { PendingButton } from './pending-button';
import { ErrorMessage } from './states';

afterEach(cleanup);

describe('Money', () => {
  it('shows the rounded text and keeps the exact string for readers and tests', () => {
    render(<Money value="-1234.5678901234" />);
    const money = screen.getByTitle('-1234.5678901234 USD');
    expect(money.textContent).toBe('-$1,234.56789');
    expect(money.dataset.value).toBe('-1234.5678901234');
    expect(money.className).toContain('negative');
  });

  it('shows USDC amounts with their unit and a dash for no value', () => {
    render(
      <>
        <Money value="3.367039" unit="USDC" />
        <Money value={null} />
      </>,
    );
    expect(screen.getByTitle('3.367039 USDC').textContent).toBe('3.367039 USDC');
    expect(screen.getByText('—')).toBeTruthy();
  });
});

describe('PendingButton', () => {
  it('says what is pending and cannot be pressed again until the answer', () => {
    const { rerender } = render(<PendingButton pending={false} pendingLabel="Saving…">Save</PendingButton>);
    const button = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect([button.type, button.disabled]).toEqual(['button', false]);
    rerender(<PendingButton pending pendingLabel="Saving…">Save</PendingButton>);
    expect((screen.getByRole('button', { name: 'Saving…' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('stays disabled when its own condition says so', () => {
    render(<PendingButton type="submit" pending={false} pendingLabel="Importing…" disabled>Import catalog</PendingButton>);
    const button = screen.getByRole('button', { name: 'Import catalog' }) as HTMLButtonElement;
    expect([button.type, button.disabled]).toEqual(['submit', true]);
  });
});

describe('DataTable', () => {
  it('has the caption as its accessible name and says when it is empty', () => {
    render(<DataTable caption="Payouts" rows={[] as Array<{ id: string }>} rowKey={(r) => r.id} empty="No payouts yet." columns={[{ header: 'Id', cell: (r) => r.id }]} />);
    expect(screen.getByRole('table', { name: 'Payouts' })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Payouts' })).toBeTruthy();
    expect(screen.getByText('No payouts yet.')).toBeTruthy();
  });

  it('renders one row per item with its cells under the headers', () => {
    render(<DataTable caption="Lines" rows={[{ id: 'a', v: '1.5' }, { id: 'b', v: '2' }]} rowKey={(r) => r.id} columns={[{ header: 'Id', cell: (r) => r.id }, { header: 'Amount', numeric: true, cell: (r) => <Money value={r.v} /> }]} />);
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.getByRole('columnheader', { name: 'Amount' }).className).toBe('numeric');
    expect(screen.getByText('$2.00')).toBeTruthy();
  });

  type Row = { id: string; v: string | null };
  const ROWS: Row[] = [
    { id: 'big', v: '100000000000000000000.000000000000000001' },
    { id: 'tiny', v: '0.000000000000000001' },
    { id: 'neg', v: '-5' },
    { id: 'none', v: null },
    { id: 'nine', v: '9.999999' },
  ];
  const ids = () => screen.getAllByRole('row').slice(1).map((row) => row.querySelector('td')!.textContent);

  it('sorts a money column exactly (no float) by a click on its header, both ways', () => {
    render(<DataTable<Row> caption="Amounts" rows={ROWS} rowKey={(r) => r.id} columns={[textColumn<Row>('Id', (r) => r.id), moneyColumn<Row>('Amount', (r) => r.v)]} />);
    fireEvent.click(screen.getByRole('button', { name: 'Amount' }));
    expect(ids()).toEqual(['none', 'neg', 'tiny', 'nine', 'big']);
    expect(screen.getByRole('columnheader', { name: /Amount/ }).getAttribute('aria-sort')).toBe('ascending');
    fireEvent.click(screen.getByRole('button', { name: /Amount/ }));
    expect(ids()).toEqual(['big', 'nine', 'tiny', 'neg', 'none']);
  });

  it('shows every amount of a money column with the same decimals, and filters rows by their text', () => {
    render(<DataTable<Row> caption="Amounts" rows={ROWS} rowKey={(r) => r.id} columns={[textColumn<Row>('Id', (r) => r.id), moneyColumn<Row>('Amount', (r) => r.v)]} />);
    const texts = [...document.querySelectorAll('td.numeric .money[data-value]')].map((e) => e.textContent);
    expect(texts).toEqual(['$100,000,000,000,000,000,000.000000', '$0.000000', '-$5.000000', '$9.999999']);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter amounts' }), { target: { value: 'NE' } });
    expect(ids()).toEqual(['neg', 'none', 'nine']);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter amounts' }), { target: { value: 'zzz' } });
    expect(screen.getByText('No row matches the filter.')).toBeTruthy();
  });
});

describe('isIsoDay', () => {
  it('takes only real days written YYYY-MM-DD', () => {
    expect(isIsoDay('2026-02-28')).toBe(true);
    expect(isIsoDay('2028-02-29')).toBe(true);
    for (const text of ['2026-02-30', '02/28/2026', '2026-2-28', '2026-13-01', '']) expect(isIsoDay(text)).toBe(false);
  });
});

describe('ErrorMessage', () => {
  it("shows the API's message exactly, as an alert, with its code", () => {
    render(<ErrorMessage error={new ApiError(409, 'conflict', 'a settlement is already open (queued)')} />);
    const alert = screen.getByRole('alert');
    expect(alert.querySelector('.error-message')!.textContent).toBe('a settlement is already open (queued)');
    expect(alert.textContent).toContain('conflict');
  });

  it('lists validation details field by field', () => {
    render(<ErrorMessage error={new ApiError(400, 'validation_failed', 'request validation failed', [{ field: 'input_usd_per_mtok', message: 'at most 6 decimals' }])} />);
    expect(screen.getByRole('alert').textContent).toContain('input_usd_per_mtok: at most 6 decimals');
  });

  it('lists flat object details as sent (a refund above the charge, a refused payout address)', () => {
    render(
      <ErrorMessage
        error={new ApiError(422, 'refund_exceeds_charge', 'the refund would take the refunded total past the charge', { charge_usd: '0.5', refunded_usd: '0', refundable_usd: '0.5' })}
      />,
    );
    const details = screen.getByRole('list', { name: 'Details' });
    expect(Array.from(details.querySelectorAll('li')).map((li) => li.textContent)).toEqual(['charge_usd: 0.5', 'refunded_usd: 0', 'refundable_usd: 0.5']);
  });

  it('shows no details list for nested details', () => {
    render(<ErrorMessage error={new ApiError(422, 'x', 'm', { nested: { a: 1 } })} />);
    expect(screen.queryByRole('list', { name: 'Details' })).toBeNull();
  });
});

describe('TxLink', () => {
  const HASH = '0x' + 'ab'.repeat(32);
  const withConfig = (template: string | null) => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.config, { chain_explorer_tx_url: template });
    return ({ children }: { children: React.ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  };

  it('links the hash to the explorer template when CHAIN_EXPLORER_TX_URL is set', () => {
    render(<TxLink hash={HASH} />, { wrapper: withConfig('https://scan.example/tx/{tx_hash}') });
    const link = screen.getByRole('link', { name: `transaction ${HASH} on the block explorer` });
    expect(link.getAttribute('href')).toBe(`https://scan.example/tx/${HASH}`);
    expect(link.getAttribute('rel')).toContain('noopener');
  });

  it('shows the hash without a link when no explorer is configured', () => {
    render(<TxLink hash={HASH} />, { wrapper: withConfig(null) });
    expect(screen.queryByRole('link')).toBeNull();
    expect(screen.getByTitle(HASH).textContent).toBe('0xababab…ababab');
  });
});
