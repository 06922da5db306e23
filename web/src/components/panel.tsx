import type { ReactNode } from 'react';

/** A titled panel of a screen: a section named by its heading (`id` ties the two). */
export function Panel({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
