import fc from 'fast-check';
import { billedCallOf, geminiJsonArrayAsSse } from './wire-formats.js';

const call = (path: string, body: Record<string, unknown> = {}) => billedCallOf(new URL(`https://api.example.com${path}`), body);

describe('billedCallOf', () => {
  it('knows every path api.md lists, with its format, the request model and whether a stream was asked', () => {
    expect(call('/v1/chat/completions', { model: 'gpt-4o', stream: true })).toEqual({ kind: 'generation', format: 'openai-chat', requestModel: 'gpt-4o', streamRequested: true });
    expect(call('/v1/completions', { model: 'gpt-3.5-turbo-instruct' })).toMatchObject({ format: 'openai-chat', streamRequested: false });
    expect(call('/v1/responses', { model: 'gpt-4o', stream: true })).toMatchObject({ format: 'openai-responses', requestModel: 'gpt-4o', streamRequested: true });
    expect(call('/v1/messages', { model: 'claude-sonnet-4-5' })).toMatchObject({ format: 'anthropic-messages', requestModel: 'claude-sonnet-4-5' });
    expect(call('/v1beta/models/gemini-2.5-flash:streamGenerateContent')).toEqual({ kind: 'generation', format: 'gemini', requestModel: 'gemini-2.5-flash', streamRequested: true });
    expect(call('/v1beta/models/gemini-2.5-flash:generateContent', { model: 'ignored' })).toMatchObject({ format: 'gemini', requestModel: 'gemini-2.5-flash', streamRequested: false });
    expect(call('/v1beta/tunedModels/my%20model:generateContent')).toMatchObject({ requestModel: 'my model' });
    expect(call('/v1/embeddings', { model: 'text-embedding-3-small' })).toMatchObject({ kind: 'embeddings', requestModel: 'text-embedding-3-small' });
  });

  it('passes anything else through', () => {
    for (const path of ['/v1/models', '/v1/files', '/v1/messages/count_tokens', '/v1/responses/resp_1/cancel', '/v1beta/models/gemini:countTokens', '/v1/messages/batches']) expect(call(path)).toBeUndefined();
  });
});

describe('geminiJsonArrayAsSse', () => {
  const response = fc.record({ candidates: fc.array(fc.record({ content: fc.record({ parts: fc.array(fc.record({ text: fc.string() }), { maxLength: 3 }) }) }), { maxLength: 2 }), usageMetadata: fc.record({ promptTokenCount: fc.nat() }) });
  const events = (sse: string) => sse.split('\r\n\r\n').filter(Boolean).map((event) => JSON.parse(event.slice('data: '.length)));

  it('turns the JSON-array stream into one data: event per response, whatever the whitespace', () => {
    fc.assert(
      fc.property(fc.array(response, { maxLength: 5 }), fc.boolean(), (responses, pretty) => {
        const text = pretty ? JSON.stringify(responses, null, 2) : JSON.stringify(responses);
        expect(events(geminiJsonArrayAsSse(text)!)).toEqual(responses);
      }),
    );
  });

  it('reads a cut-off array up to its last complete response', () => {
    fc.assert(
      fc.property(fc.array(response, { minLength: 1, maxLength: 5 }), fc.nat(), (responses, cut) => {
        const text = JSON.stringify(responses, null, 1);
        const prefix = text.slice(0, 1 + (cut % (text.length - 1)));
        const got = events(geminiJsonArrayAsSse(prefix)!);
        expect(got).toEqual(responses.slice(0, got.length));
      }),
    );
  });

  it('is undefined for what is not an array', () => {
    expect(geminiJsonArrayAsSse('{"candidates":[]}')).toBeUndefined();
    expect(geminiJsonArrayAsSse('data: {}')).toBeUndefined();
  });
});
