// A tiny JSON-RPC proxy in front of Anvil that misbehaves on purpose: it can cut the connection
// before forwarding (the node never saw the call), forward and then cut the connection (the node
// acted, the caller never heard: the worst case for eth_sendRawTransaction), answer 502, or delay.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../../../src/common/random/seeded-random.js';

export type ProxyFault = 'pass' | 'drop-request' | 'drop-response' | 'http-502' | 'delay';

export interface RpcProxyOptions {
  targetUrl: string;
  seed: number;
  /** Chance, per HTTP request, of each fault (the rest pass). */
  rates: { dropRequest: number; dropResponse: number; http502: number; delay: number };
  delayMs: { min: number; max: number };
  /** Methods whose response is always dropped the first N times (after the node got them). */
  dropFirstResponses?: Record<string, number>;
}

export interface RpcProxy {
  url: string;
  enabled: boolean;
  counts: Record<ProxyFault, number>;
  /** JSON-RPC method -> faults applied to requests carrying it. */
  faultsByMethod: Record<string, Partial<Record<ProxyFault, number>>>;
  close(): Promise<void>;
}

function methodsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { method?: string } | Array<{ method?: string }>;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((c) => c.method ?? '?');
  } catch {
    return ['?'];
  }
}

export async function startRpcProxy(options: RpcProxyOptions): Promise<RpcProxy> {
  const random = seededRandom(options.seed);
  const remainingForced = { ...(options.dropFirstResponses ?? {}) };
  const proxy: RpcProxy = {
    url: '',
    enabled: true,
    counts: { pass: 0, 'drop-request': 0, 'drop-response': 0, 'http-502': 0, delay: 0 },
    faultsByMethod: {},
    close: async () => undefined,
  };

  const choose = (methods: string[]): ProxyFault => {
    if (!proxy.enabled) return 'pass';
    const forced = methods.find((m) => (remainingForced[m] ?? 0) > 0);
    if (forced) {
      remainingForced[forced]! -= 1;
      return 'drop-response';
    }
    const r = random();
    const { dropRequest, dropResponse, http502, delay } = options.rates;
    if (r < dropRequest) return 'drop-request';
    if (r < dropRequest + dropResponse) return 'drop-response';
    if (r < dropRequest + dropResponse + http502) return 'http-502';
    if (r < dropRequest + dropResponse + http502 + delay) return 'delay';
    return 'pass';
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const methods = methodsOf(body);
    const fault = choose(methods);
    proxy.counts[fault] += 1;
    if (fault !== 'pass') {
      for (const m of methods) {
        const byFault = (proxy.faultsByMethod[m] ??= {});
        byFault[fault] = (byFault[fault] ?? 0) + 1;
      }
    }
    if (fault === 'drop-request') return void req.socket.destroy();
    if (fault === 'http-502') return void res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway (reliability proxy)');
    if (fault === 'delay') await new Promise((r) => setTimeout(r, options.delayMs.min + random() * (options.delayMs.max - options.delayMs.min)));
    let upstream: Response;
    try {
      upstream = await fetch(options.targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch {
      return void req.socket.destroy();
    }
    const text = await upstream.text();
    // The node has acted on the call; the caller never hears about it.
    if (fault === 'drop-response') return void req.socket.destroy();
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}
