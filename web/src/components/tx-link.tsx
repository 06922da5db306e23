import { shortHash } from '../lib/format';
import { useExplorerLink } from '../lib/use-config';

/** A transaction hash, linked to the block explorer when one is configured. */
export function TxLink({ hash }: { hash: string | null | undefined }) {
  const link = useExplorerLink();
  if (!hash) return <span className="muted">—</span>;
  const href = link(hash);
  const text = <code title={hash} data-tx-hash={hash}>{shortHash(hash)}</code>;
  return href ? (
    <a href={href} target="_blank" rel="noreferrer noopener" aria-label={`transaction ${hash} on the block explorer`}>
      {text}
    </a>
  ) : (
    text
  );
}
