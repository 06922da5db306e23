import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeApiKey, clearApiKey } from '../auth/session';
import { apiJson, ApiError, buildUrl, onUnauthenticated } from './client';

// The browser's fetch, answering with real Response objects as the API would.
function answer(status: number, body: unknown) {
  return vi.fn(async (_url: string, _init?: RequestInit) => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));
}

describe('api client', () => {
  const realFetch = globalThis.fetch;
  beforeEach(() => storeApiKey('k-123'));
  afterEach(() => {
    globalThis.fetch = realFetch;
    clearApiKey();
  });

  it('sends the stored key as a Bearer token, no cookies, and JSON bodies as text', async () => {
    const fetch = answer(200, { ok: true });
    globalThis.fetch = fetch as unknown as typeof globalThis.fetch;
    await apiJson('/v1/admin/prices', { method: 'POST', json: { model: 'm', input_usd_per_mtok: '2.5' } });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/v1/admin/prices');
    expect((init!.headers as Record<string, string>).authorization).toBe('Bearer k-123');
    expect(init!.credentials).toBe('omit');
    expect(init!.body).toBe('{"model":"m","input_usd_per_mtok":"2.5"}');
  });

  it("turns the API's error body into an ApiError carrying its message as is", async () => {
    globalThis.fetch = answer(422, { error: { code: 'payout_address_refused', message: 'the address is the USDC token contract' } }) as unknown as typeof globalThis.fetch;
    const error = await apiJson('/v1/admin/contributors/c1', { method: 'PUT', json: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, code: 'payout_address_refused', message: 'the address is the USDC token contract' });
  });

  it('says what came back when the body is not the API error shape', async () => {
    globalThis.fetch = answer(502, '<html>bad gateway</html>') as unknown as typeof globalThis.fetch;
    await expect(apiJson('/v1/admin/overview')).rejects.toMatchObject({ status: 502, code: 'http_error' });
  });

  it('tells listeners when the stored key is refused (401), not when a candidate key is', async () => {
    const listener = vi.fn();
    const stop = onUnauthenticated(listener);
    globalThis.fetch = answer(401, { error: { code: 'unauthenticated', message: 'unknown or revoked API key' } }) as unknown as typeof globalThis.fetch;
    await expect(apiJson('/v1/me', { apiKey: 'candidate' })).rejects.toMatchObject({ message: 'unknown or revoked API key' });
    expect(listener).not.toHaveBeenCalled();
    await expect(apiJson('/v1/admin/overview')).rejects.toBeInstanceOf(ApiError);
    expect(listener).toHaveBeenCalledTimes(1);
    stop();
  });

  it('leaves empty query parameters out of the URL', () => {
    expect(buildUrl('/v1/admin/contributors', { q: '', cursor: undefined, limit: 50 })).toBe('/v1/admin/contributors?limit=50');
    expect(buildUrl('/x', { model: 'openai/gpt-4o' })).toBe('/x?model=openai%2Fgpt-4o');
  });
});
