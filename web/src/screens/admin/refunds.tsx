import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { Refund, RefundFilters } from '../../api/wire';
import { PagedTable } from '../../components/paged-table';
import { Money } from '../../components/money';
import { FormFooter } from '../../components/states';
import { newRefundId, refundBody, refundFilters } from '../../lib/console-forms';
import { moneyColumn, timeColumn } from '../../components/columns';
import { Panel } from '../../components/panel';

const route = getRouteApi('/refunds');

/**
 * Issues a refund of one usage event. The refund_id is made when the form opens and kept until a
 * refund is recorded, so pressing the button twice (or again after a network error) is the same
 * refund to the API (idempotent by refund_id), never two.
 */
export function RefundForm({ initialEventId = '' }: { initialEventId?: string }) {
  const queryClient = useQueryClient();
  const [eventId, setEventId] = useState(initialEventId);
  const [full, setFull] = useState(true);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [refundId, setRefundId] = useState(() => newRefundId());
  const [problem, setProblem] = useState<string | null>(null);
  const issue = useMutation({
    mutationFn: (input: { eventId: string; body: Parameters<typeof api.createRefund>[1] }) => api.createRefund(input.eventId, input.body),
    onSuccess: async () => {
      setRefundId(newRefundId());
      await queryClient.invalidateQueries({ queryKey: ['refunds'] });
      await queryClient.invalidateQueries({ queryKey: ['contributor'] });
      await queryClient.invalidateQueries({ queryKey: queryKeys.overview });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!eventId.trim()) return setProblem('the usage event id is required');
    const result = refundBody({ refundId, full, amount, reason });
    if ('problem' in result) return setProblem(result.problem);
    setProblem(null);
    issue.mutate({ eventId: eventId.trim(), body: result.body });
  };
  return (
    <form onSubmit={submit} aria-label="Issue a refund" className="form-grid">
      <label htmlFor="refund-event">Usage event id</label>
      <input id="refund-event" value={eventId} onChange={(e) => setEventId(e.target.value)} spellCheck={false} required />
      <fieldset>
        <legend>Amount</legend>
        <label>
          <input type="radio" name="refund-kind" checked={full} onChange={() => setFull(true)} /> All not refunded yet
        </label>
        <label>
          <input type="radio" name="refund-kind" checked={!full} onChange={() => setFull(false)} /> Part
        </label>
      </fieldset>
      <label htmlFor="refund-amount">Amount USD (for a part)</label>
      <input id="refund-amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} disabled={full} />
      <label htmlFor="refund-reason">Reason</label>
      <input id="refund-reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} required />
      <p className="muted small">
        Refund id <code data-refund-id={refundId}>{refundId}</code> (sending again is the same refund)
      </p>
      <FormFooter pending={issue.isPending} label="Issue refund" pendingLabel="Refunding…" problem={problem} error={issue.isError ? issue.error : null} errorTitle="Refund not issued" />
      {issue.isSuccess && (
        <div role="status" data-refund-result={issue.data.refund_id}>
          Refund <code>{issue.data.refund_id}</code> of event <code>{issue.data.event_id}</code>: <Money value={issue.data.amount_usd} /> back to the user,{' '}
          <Money value={issue.data.contributor_clawback_usd} /> clawed back from the contributor, <Money value={issue.data.margin_reversed_usd} /> margin reversed;{' '}
          <Money value={issue.data.refunded_total_usd} /> refunded in total for this event.
        </div>
      )}
    </form>
  );
}

const FILTER_FIELDS = [
  { name: 'event_id', label: 'Event id' },
  { name: 'contributor_id', label: 'Contributor id' },
  { name: 'user_id', label: 'User id' },
] as const;

export function RefundsScreen() {
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/refunds' });
  const filters: RefundFilters = search;
  const [draft, setDraft] = useState({ event_id: search.event_id ?? '', contributor_id: search.contributor_id ?? '', user_id: search.user_id ?? '' });
  return (
    <section aria-labelledby="refunds-title">
      <h1 id="refunds-title">Refunds and clawbacks</h1>
      <Panel id="refund-issue-title" title="Issue a refund">
        <p className="muted small">
          The amount goes back to the user’s credit; the contributor gives back the same share of its payout (its payable may go below zero: a debt netted against
          later earnings).
        </p>
        <RefundForm initialEventId={search.event_id ?? ''} />
      </Panel>
      <form
        aria-label="Filter refunds"
        className="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void navigate({ search: refundFilters(draft) });
        }}
      >
        {FILTER_FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}{' '}
            <input value={draft[f.name]} onChange={(e) => setDraft({ ...draft, [f.name]: e.target.value })} spellCheck={false} />
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      <PagedTable<Refund>
        queryKey={queryKeys.refunds(filters)} fetchPage={(cursor) => api.refunds(filters, cursor)} what="refunds"
        caption="Refunds, newest first" rowKey={(r) => r.refund_id} empty="No refund matches."
        columns={[
          timeColumn('When', (r) => r.created_at),
          { header: 'Refund id', cell: (r) => <code>{r.refund_id}</code> },
          { header: 'Event', cell: (r) => <code>{r.event_id}</code> },
          { header: 'User', cell: (r) => r.user_id ?? '' },
          {
            header: 'Contributor',
            cell: (r) => (r.contributor_id ? <Link to="/contributors/$contributorId" params={{ contributorId: r.contributor_id }}>{r.contributor_id}</Link> : ''),
          },
          { header: 'Model', cell: (r) => (r.model ? <code>{r.model}</code> : '') },
          moneyColumn('Refunded', (r) => r.amount_usd),
          moneyColumn('Clawed back', (r) => r.contributor_clawback_usd),
          moneyColumn('Margin reversed', (r) => r.margin_reversed_usd),
          moneyColumn('Event refunded in total', (r) => r.refunded_total_usd),
          { header: 'Reason', cell: (r) => r.reason ?? '' },
        ]}
      />
    </section>
  );
}
