import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, queryKeys } from '../../api/endpoints';
import type { UsageAuditRow } from '../../api/wire';
import { DataTable } from '../../components/data-table';
import { ErrorMessage, QueryView } from '../../components/states';
import { formatTimestamp } from '../../lib/format';
import { contributorColumn } from '../../components/columns';

/** Clear (payouts resume, only later events count) or suspend a flagged contributor, with a reason. */
function ReviewForm({ contributorId }: { contributorId: string }) {
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const review = useMutation({
    mutationFn: (decision: 'clear' | 'suspend') => api.review(contributorId, decision, reason),
    onSuccess: async () => {
      setReason('');
      await queryClient.invalidateQueries({ queryKey: queryKeys.usageAudit });
      await queryClient.invalidateQueries({ queryKey: ['contributor', contributorId] });
    },
  });
  const submit = (decision: 'clear' | 'suspend') => (event: FormEvent) => {
    event.preventDefault();
    review.mutate(decision);
  };
  return (
    <form onSubmit={submit('clear')} aria-label={`Review ${contributorId}`}>
      <input aria-label="Reason" placeholder="reason" value={reason} onChange={(e) => setReason(e.target.value)} required />
      <button type="submit" disabled={review.isPending || reason.trim() === ''}>
        Clear
      </button>
      <button type="button" onClick={submit('suspend')} disabled={review.isPending || reason.trim() === ''}>
        Suspend
      </button>
      {review.isError && <ErrorMessage error={review.error} />}
    </form>
  );
}

export function UsageAuditScreen() {
  const audit = useQuery({ queryKey: queryKeys.usageAudit, queryFn: () => api.usageAudit() });
  return (
    <section aria-labelledby="usage-audit-title">
      <h1 id="usage-audit-title">Usage audit</h1>
      <p className="muted">
        Reported / counted completion tokens of each contributor’s streams, per model, against the model’s other contributors. A flagged contributor is held for review
        when USAGE_AUDIT_HOLD is on.
      </p>
      <QueryView query={audit} label="the usage audit">
        {(body) => (
          <DataTable<UsageAuditRow>
            caption="Contributors and models audited" rows={body.data} rowKey={(r) => `${r.contributor_id} ${r.model}`} empty="No stream audited yet."
            columns={[
              contributorColumn((r) => r.contributor_id),
              { header: 'Model', cell: (r) => <code>{r.model}</code> },
              { header: 'Events', cell: (r) => r.events },
              { header: 'Median ratio', cell: (r) => r.median_ratio },
              { header: 'Model median', cell: (r) => r.model_median_ratio ?? '–' },
              { header: 'Flagged', cell: (r) => (r.flagged ? <span className="badge bad">since {r.flagged_since ? formatTimestamp(r.flagged_since) : ''}</span> : 'no') },
              { header: 'Review', cell: (r) => (r.flagged ? <ReviewForm contributorId={r.contributor_id} /> : null) },
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}
