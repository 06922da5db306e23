import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { bodyMatchesSignature, checkSignatureHeaders, generateSigningSecret, signatureHmac, signingKeyBytes, signStandardWebhook, SIGNATURE_TOLERANCE_SECONDS, digestMatches } from './standard-webhooks.js';

const NOW_S = 1_790_000_000;
const idArb = fc.stringMatching(/^[A-Za-z0-9_:-]{1,40}$/);

describe('Standard Webhooks signing', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKeyBytes(secret)).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('property: what the standardwebhooks package signs, the native verifier accepts (also chunked), and the package verifies ours', () => {
    fc.assert(
      fc.property(idArb, fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: -SIGNATURE_TOLERANCE_SECONDS, max: SIGNATURE_TOLERANCE_SECONDS }), fc.integer({ min: 1, max: 7 }), (id, body, skewS, chunks) => {
        const secret = generateSigningSecret();
        const headers = signStandardWebhook(secret, { id, timestamp: new Date((NOW_S + skewS) * 1000), body });
        const check = checkSignatureHeaders(headers, NOW_S);
        expect(check.ok).toBe(true);
        if (!check.ok) return;
        const key = signingKeyBytes(secret);
        expect(bodyMatchesSignature(key, check, Buffer.from(body, 'utf8'))).toBe(true);
        // Fed chunk by chunk, as the SSE route reads its body.
        const bytes = Buffer.from(body, 'utf8');
        const hmac = signatureHmac(key, check.id, check.timestampSeconds);
        const step = Math.max(1, Math.ceil(bytes.length / chunks));
        for (let i = 0; i < bytes.length; i += step) hmac.update(bytes.subarray(i, i + step));
        expect(digestMatches(hmac.digest(), check.signatures)).toBe(true);
        // The other way: our HMAC in the header, the package's verify (without its own clock check).
        const ours = signatureHmac(key, id, NOW_S + skewS).update(body).digest('base64');
        const nowMs = Date.now;
        Date.now = () => (NOW_S + skewS) * 1000;
        try {
          expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-signature': `v1,${ours}` }, { jsonParse: false } as never)).not.toThrow();
        } finally {
          Date.now = nowMs;
        }
      }),
      { seed: 3, numRuns: 200 },
    );
  });

  it('property: any change to the body, id or timestamp, or another secret, breaks the signature', () => {
    fc.assert(
      fc.property(idArb, fc.string({ minLength: 1, maxLength: 200 }), fc.nat({ max: 199 }), (id, body, position) => {
        const secret = generateSigningSecret();
        const headers = signStandardWebhook(secret, { id, timestamp: new Date(NOW_S * 1000), body });
        const check = checkSignatureHeaders(headers, NOW_S);
        if (!check.ok) throw new Error(check.reason);
        const key = signingKeyBytes(secret);
        const i = position % body.length;
        const altered = body.slice(0, i) + String.fromCharCode(body.charCodeAt(i) ^ 1) + body.slice(i + 1);
        expect(bodyMatchesSignature(key, check, altered)).toBe(false);
        expect(bodyMatchesSignature(key, { ...check, id: `${id}x` }, body)).toBe(false);
        expect(bodyMatchesSignature(key, { ...check, timestampSeconds: NOW_S + 1 }, body)).toBe(false);
        expect(bodyMatchesSignature(signingKeyBytes(generateSigningSecret()), check, body)).toBe(false);
      }),
      { seed: 4, numRuns: 200 },
    );
  });

  it('checks the headers: present, a dotless id, whole seconds within 5 minutes, a v1 signature', () => {
    const good = { 'webhook-id': 'req_1', 'webhook-timestamp': String(NOW_S), 'webhook-signature': 'v1,AAAA' };
    expect(checkSignatureHeaders(good, NOW_S)).toEqual({ ok: true, id: 'req_1', timestampSeconds: NOW_S, signatures: ['AAAA'] });
    expect(checkSignatureHeaders({ ...good, 'webhook-signature': 'v1a,AAAA v1,BBBB v1,CCCC' }, NOW_S)).toMatchObject({ ok: true, signatures: ['BBBB', 'CCCC'] });
    const refused = [
      { 'webhook-id': 'req_1', 'webhook-timestamp': String(NOW_S) },
      { ...good, 'webhook-id': 'req.1' },
      { ...good, 'webhook-id': '' },
      { ...good, 'webhook-timestamp': `${NOW_S}abc` },
      { ...good, 'webhook-timestamp': '-5' },
      { ...good, 'webhook-timestamp': String(NOW_S - SIGNATURE_TOLERANCE_SECONDS - 1) },
      { ...good, 'webhook-timestamp': String(NOW_S + SIGNATURE_TOLERANCE_SECONDS + 1) },
      { ...good, 'webhook-signature': 'v1a,AAAA' },
      { ...good, 'webhook-id': ['a', 'b'] },
    ];
    for (const headers of refused) expect(checkSignatureHeaders(headers as never, NOW_S).ok).toBe(false);
    expect(checkSignatureHeaders({ ...good, 'webhook-timestamp': String(NOW_S - SIGNATURE_TOLERANCE_SECONDS) }, NOW_S).ok).toBe(true);
  });
});
