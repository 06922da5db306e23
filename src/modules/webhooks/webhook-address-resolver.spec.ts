// The lookup a delivery's socket uses, with a stubbed resolver (no real private address is ever
// resolved or connected to): exactly the addresses handed to the socket are the ones checked.
import type { LookupAddress } from 'node:dns';
import { ADDRESSES_PER_HOST_MAX, checkHost, guardedLookup, RefusedAddressError, type AddressResolver } from './webhook-address-resolver.js';
import { sendWebhook } from './webhook-sender.js';

/** Public (not reserved) addresses: 8.8.<i>.1 and 2606:4700::<i>. */
const publicAddresses = (n: number): LookupAddress[] =>
  Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { address: `8.8.${i}.1`, family: 4 } : { address: `2606:4700::${(i + 1).toString(16)}`, family: 6 }));
const stub = (addresses: LookupAddress[]): AddressResolver => async () => addresses;

function lookUp(resolve: AddressResolver, all: boolean): Promise<{ error: Error | null; addresses: LookupAddress[] }> {
  return new Promise((done) => {
    guardedLookup(resolve)('hooks.example.test', { all }, ((error: Error | null, address: string | LookupAddress[], family?: number) => {
      if (error) return done({ error, addresses: [] });
      done({ error: null, addresses: Array.isArray(address) ? address : [{ address, family: family! }] });
    }) as never);
  });
}

describe('guardedLookup', () => {
  it('hands the socket only the addresses it checked: a private one past the limit is never handed (it was before)', async () => {
    const answer = publicAddresses(ADDRESSES_PER_HOST_MAX + 8);
    answer[ADDRESSES_PER_HOST_MAX] = { address: '::ffff:169.254.169.254', family: 6 };
    answer[ADDRESSES_PER_HOST_MAX + 3] = { address: '10.0.0.1', family: 4 };
    const { error, addresses } = await lookUp(stub(answer), true);
    expect(error).toBeNull();
    expect(addresses).toEqual(answer.slice(0, ADDRESSES_PER_HOST_MAX));
    expect(addresses.map((a) => a.address)).not.toContain('10.0.0.1');
  });

  it.each(['10.0.0.1', '::ffff:0:a9fe:a9fe', '::169.254.169.254', '64:ff9b::a00:1', '2002:7f00:1::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'fd00::1'])(
    'refuses the connection when a usable address is %s, wherever it is among them',
    async (refused) => {
      for (const at of [0, 7, ADDRESSES_PER_HOST_MAX - 1]) {
        const answer = publicAddresses(ADDRESSES_PER_HOST_MAX);
        answer[at] = { address: refused, family: refused.includes(':') ? 6 : 4 };
        for (const all of [true, false]) {
          const { error } = await lookUp(stub(answer), all);
          expect(error).toBeInstanceOf(RefusedAddressError);
          expect(error!.message).toContain(refused);
        }
      }
    },
  );

  it('without `all`, gives the first checked address; a resolver error or an empty answer is passed on', async () => {
    expect((await lookUp(stub(publicAddresses(3)), false)).addresses).toEqual([{ address: '8.8.0.1', family: 4 }]);
    expect((await lookUp(stub([]), true)).error).toBeInstanceOf(RefusedAddressError);
    const failing: AddressResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect((await lookUp(failing, true)).error?.message).toContain('ENOTFOUND');
  });
});

describe('checkHost (registration)', () => {
  it('checks the same addresses the delivery may use', async () => {
    const answer = publicAddresses(ADDRESSES_PER_HOST_MAX + 2);
    answer.push({ address: '127.0.0.1', family: 4 });
    await expect(checkHost('hooks.example.test', { allowPrivate: false, ipLiteral: false, resolve: stub(answer) })).resolves.toEqual({ ok: true, addresses: answer.slice(0, ADDRESSES_PER_HOST_MAX) });
    const early = [{ address: '::ffff:0:10.0.0.1', family: 6 }, ...publicAddresses(2)];
    await expect(checkHost('hooks.example.test', { allowPrivate: false, ipLiteral: false, resolve: stub(early) })).resolves.toMatchObject({ ok: false });
  });
});

describe('sendWebhook', () => {
  it('refuses a delivery whose name resolves to an IPv4-translated private address, before any byte is sent', async () => {
    const attempt = await sendWebhook(
      { url: 'http://hooks.example.test:8080/in', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, messageId: 'msg_1', body: '{}' },
      { allowPrivate: false, httpsOnly: false, timeoutMs: 2_000, resolve: stub([{ address: '::ffff:0:a00:1', family: 6 }]) },
    );
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toContain('IPv4-translated for 10.0.0.1');
  });
});
