const TONES: Record<string, string> = {
  confirmed: 'good',
  paid: 'good',
  active: 'good',
  priced: 'good',
  ok: 'good',
  pending_approval: 'warn',
  queued: 'info',
  submitting: 'info',
  submitted: 'info',
  partially_failed: 'bad',
  failed: 'bad',
  suspended: 'bad',
  unpriced: 'warn',
  delivered: 'good',
  pending: 'info',
  disabled: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${TONES[status] ?? 'neutral'}`}>{status.replace(/_/g, ' ')}</span>;
}
