// `npm run reassemble` (scripts/reassemble.ts) run as a process on fixture bodies.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;
const fixture = (name: string) => readFileSync(`${root}test/fixtures/sse/${name}.sse`);
const reassemble = (body: Buffer, args: string[] = []) =>
  JSON.parse(execFileSync(tsx, ['scripts/reassemble.ts', ...args], { cwd: root, input: body, encoding: 'utf8', timeout: 60_000 })) as Record<string, unknown>;
const formatFixture = (name: string) => readFileSync(`${root}test/fixtures/formats/${name}.sse`);
const expectedOf = (name: string) => JSON.parse(readFileSync(`${root}test/fixtures/formats/${name}.expected.json`, 'utf8')) as Record<string, unknown>;

describe('npm run reassemble', () => {
  it('prints the new usage kinds when non-zero, cached/reasoning as sent, and the service tier', () => {
    const anthropic = reassemble(fixture('42-gateway-anthropic-native-usage-web-search'));
    expect(anthropic.usage).toStrictEqual({
      prompt_tokens: 14586,
      completion_tokens: 640,
      cached_tokens: 12000,
      cache_write_5m_tokens: 500,
      cache_write_1h_tokens: 2000,
      web_search_calls: 3,
    });
    expect(anthropic).toMatchObject({ service_tier: 'standard', error: null, truncated: false });

    const audio = reassemble(fixture('40-openai-audio-in-out-cached-usage'));
    // image tokens and cache writes are 0 / not sent: not printed; reasoning 0 is sent: printed.
    expect(audio.usage).toStrictEqual({
      prompt_tokens: 2746,
      completion_tokens: 412,
      total_tokens: 3158,
      cached_tokens: 1920,
      reasoning_tokens: 0,
      prompt_audio_tokens: 640,
      completion_audio_tokens: 380,
    });
  }, 120_000);

  it('prints no service_tier when the stream names none', () => {
    expect(reassemble(fixture('43-openrouter-cache-write-tokens'))).not.toHaveProperty('service_tier');
  }, 60_000);
});

describe('npm run reassemble -- --format F', () => {
  it.each([
    ['responses-web-search', 'openai-responses'],
    ['anthropic-web-search-tool', 'anthropic-messages'],
    ['gemini-google-search-grounding', 'gemini'],
  ])('%s: the same result detected and with --format %s', (name, format) => {
    const { model: _model, service_tier: _tier, ...expected } = expectedOf(name);
    const detected = reassemble(formatFixture(name));
    expect(detected).toMatchObject(expected);
    expect(reassemble(formatFixture(name), ['--format', format])).toEqual(detected);
  }, 120_000);

  it('a chat stream says openai-chat; another format given is a format error; a body of none has format null', () => {
    expect(reassemble(fixture('01-openai-content-simple'))).toMatchObject({ format: 'openai-chat', error: null });
    expect(reassemble(formatFixture('anthropic-text'), ['--format', 'gemini'])).toMatchObject({ format: 'gemini', error: { code: 'unsupported_stream_format', source: 'format' } });
    expect(reassemble(Buffer.from('hello'))).toMatchObject({ format: null, error: { code: 'unsupported_stream_format' } });
  }, 120_000);

  it('an unknown --format exits 2 and prints nothing on stdout', () => {
    expect(() => execFileSync(tsx, ['scripts/reassemble.ts', '--format', 'cohere'], { cwd: root, input: '', encoding: 'utf8', stdio: 'pipe', timeout: 60_000 })).toThrow(expect.objectContaining({ status: 2, stdout: '' }));
  }, 60_000);
});
