import type { ReactNode } from 'react';

/** One figure with its label; `name` ties the figure to its API field for tests and readers. */
export function Stat({ label, name, children, hint }: { label: string; name: string; children: ReactNode; hint?: string }) {
  return (
    <div className="stat" data-stat={name}>
      <dt>{label}</dt>
      <dd>{children}</dd>
      {hint && <p className="muted small">{hint}</p>}
    </div>
  );
}

export function StatGrid({ label, children }: { label: string; children: ReactNode }) {
  return (
    <dl className="stats" aria-label={label}>
      {children}
    </dl>
  );
}
