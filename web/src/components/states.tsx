import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** The API's error message exactly as it was sent, with its code for reference. */
export function ErrorMessage({ error, title = 'The API refused this' }: { error: unknown; title?: string }) {
  const apiError = error instanceof ApiError ? error : null;
  const message = apiError ? apiError.message : error instanceof Error ? error.message : String(error);
  return (
    <div className="error" role="alert">
      <strong>{title}</strong>
      <p className="error-message">{message}</p>
      {apiError && (
        <p className="muted small">
          {apiError.status > 0 ? `HTTP ${apiError.status}, ` : ''}code <code>{apiError.code}</code>
        </p>
      )}
      {apiError && Array.isArray(apiError.details) && apiError.details.length > 0 && (
        <ul className="small">
          {(apiError.details as Array<{ field?: string; message?: string }>).map((d, i) => (
            <li key={i}>
              <code>{d.field}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
      {apiError && isFlatObject(apiError.details) && (
        <ul className="small" aria-label="Details">
          {Object.entries(apiError.details).map(([name, value]) => (
            <li key={name}>
              <code>{name}</code>: {String(value)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Details like {refundable_usd: "0.5"} (refunds) or {reason: "..."} (payout address): shown as sent. */
function isFlatObject(value: unknown): value is Record<string, string | number | boolean | null> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
  );
}

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {label}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** Loading, error and (optionally) empty states around one query's data. */
export function QueryView<T>({
  query,
  label,
  isEmpty,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  label?: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading label={label ? `Loading ${label}` : 'Loading'} />;
  if (query.isError) return <ErrorMessage error={query.error} title={label ? `Could not load ${label}` : 'Could not load'} />;
  if (isEmpty?.(query.data)) return <Empty>{empty ?? 'Nothing here yet.'}</Empty>;
  return <>{children(query.data)}</>;
}

/**
 * The foot of every action form: the submit button (its label while the request runs), the
 * form's own check message, and the API's refusal shown as is.
 */
export function FormFooter({ pending, label, pendingLabel, problem, error, errorTitle }: { pending: boolean; label: string; pendingLabel: string; problem: string | null; error: unknown; errorTitle: string }) {
  return (
    <>
      <div className="actions">
        <button type="submit" className="primary" disabled={pending}>
          {pending ? pendingLabel : label}
        </button>
      </div>
      {problem && (
        <p role="alert" className="error-message">
          {problem}
        </p>
      )}
      {error ? <ErrorMessage error={error} title={errorTitle} /> : null}
    </>
  );
}
