// A viem public client on the soak's Anvil (one per RPC URL), for the chain side of the invariants.
import { createPublicClient, http, type PublicClient } from 'viem';
import { devChain } from '../lib/devchain.js';

const clients = new Map<string, PublicClient>();

export function readChain(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ chain: devChain(rpcUrl), transport: http(rpcUrl, { retryCount: 2 }), cacheTime: 0 }) as PublicClient;
    clients.set(rpcUrl, client);
  }
  return client;
}
