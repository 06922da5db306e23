// What the SDK e2e tests share: the real API listening on loopback, seeded for billing (contributors
// c_std and c_prem, user u_42 with 100 USD) with a price for each model the test names, a gateway
// key, and an upstream replaying recorded answers (sse-upstream.ts).
import type { AddressInfo } from 'node:net';
import { seedBilling } from '../../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';
import { startSseUpstream, type SseUpstream } from './sse-upstream.js';

export interface SdkTestbed {
  t: TestApp;
  upstream: SseUpstream;
  gatewayKey: string;
  ledgerUrl: string;
  /** The stored event (or the API's error body when there is none). */
  event: (eventId: string) => Promise<Record<string, any>>;
  close: () => Promise<void>;
}

/** `prices`: model -> [input, output] USD per Mtok. */
export async function startSdkTestbed(label: string, prices: Record<string, [string, string]>): Promise<SdkTestbed> {
  const t = await startTestApp(label);
  await t.app.listen(0, '127.0.0.1');
  await seedBilling(t);
  for (const [model, [input, output]] of Object.entries(prices)) {
    await t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: input, output_usd_per_mtok: output, cached_input_usd_per_mtok: '0.5', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  }
  const gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: label }).expect(201)).body.key as string;
  const upstream = await startSseUpstream();
  return {
    t,
    upstream,
    gatewayKey,
    ledgerUrl: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`,
    event: async (eventId) => (await t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`))).body,
    close: async () => {
      await upstream.close();
      await t.close();
    },
  };
}
