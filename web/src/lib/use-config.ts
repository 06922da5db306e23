import { useQuery } from '@tanstack/react-query';
import { api, queryKeys } from '../api/endpoints';
import { explorerTxUrl } from './format';

/** The block-explorer link of a transaction, when the operator set CHAIN_EXPLORER_TX_URL. */
export function useExplorerLink(): (txHash: string) => string | null {
  const config = useQuery({ queryKey: queryKeys.config, queryFn: api.config, staleTime: Infinity });
  return (txHash) => explorerTxUrl(config.data?.chain_explorer_tx_url, txHash);
}
