import type { ReactNode } from 'react';
import { Money } from './money';

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

/** Amounts of one answer, a Stat each named after its field (`namePrefix` + field): `[label, field]` pairs in order. */
export function MoneyStats<T>({ of, figures, namePrefix = '' }: { of: T; figures: ReadonlyArray<readonly [label: string, field: keyof T & string]>; namePrefix?: string }) {
  return (
    <>
      {figures.map(([label, field]) => (
        <Stat key={field} label={label} name={`${namePrefix}${field}`}>
          <Money value={of[field] as string} />
        </Stat>
      ))}
    </>
  );
}
