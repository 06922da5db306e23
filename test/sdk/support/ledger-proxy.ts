// A loopback proxy in front of the real API that records each request the SDK makes (method, path,
// query) and can answer chosen ones with a fault instead of forwarding them (a 503 for one report,
// a 401 while a key is "rotated"), so outbox behaviour is tested against the real ledger.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  status: number;
}

export interface Fault {
  /** Which requests it applies to. */
  matches: (request: { method: string; path: string; query: URLSearchParams }) => boolean;
  status: number;
}

export interface LedgerProxy {
  url: string;
  requests: ProxiedRequest[];
  faults: Fault[];
  /** The reports (POSTs to the usage-event routes) recorded so far. */
  reports: () => ProxiedRequest[];
  close: () => Promise<void>;
}

export async function startLedgerProxy(targetUrl: string): Promise<LedgerProxy> {
  const target = new URL(targetUrl);
  const requests: ProxiedRequest[] = [];
  const faults: Fault[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const seen = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams };
    const fault = faults.find((candidate) => candidate.matches(seen));
    if (fault) {
      req.resume();
      requests.push({ ...seen, status: fault.status });
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: fault.status === 401 ? 'unauthenticated' : 'unavailable', message: 'injected by the test proxy' } }));
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      requests.push({ ...seen, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    faults,
    reports: () => requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/usage-events')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
