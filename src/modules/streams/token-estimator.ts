// Offline completion-token estimate for streams that reported no usage, using gpt-tokenizer.
// The BPE tables are megabytes of JS (~0.5 s to load), so each encoding is loaded on first use
// and importing this module stays cheap.
import { createRequire } from 'node:module';

export type TokenEncodingName = 'o200k_base' | 'cl100k_base';

export interface CompletionTokenInput {
  /** As the provider named it; a `provider/` prefix (OpenRouter style) is ignored. */
  model: string | null | undefined;
  content: string;
  toolCalls?: ReadonlyArray<{ name: string; arguments_raw: string }>;
}

export interface TokenEstimate {
  tokens: number;
  encoding: TokenEncodingName;
}

type EncodingModule = Pick<typeof import('gpt-tokenizer/encoding/o200k_base'), 'countTokens'>;

// Synchronous lazy load of the package's CommonJS build: estimateCompletionTokens stays sync.
const requireModule = createRequire(import.meta.url);
const ENCODING_MODULES: Record<TokenEncodingName, string> = {
  o200k_base: 'gpt-tokenizer/encoding/o200k_base',
  cl100k_base: 'gpt-tokenizer/encoding/cl100k_base',
};
const loadedEncodings = new Map<TokenEncodingName, EncodingModule>();

// Model output may contain text such as "<|endoftext|>": count it as plain text, never throw.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Current OpenAI families use o200k_base; the name must end or go on with a separator after the family. */
const O200K_MODEL = /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-4o|codex-mini|o1|o3|o4)(?![a-z0-9])/;

/** o200k_base for current OpenAI models, cl100k_base for everything else (older GPT-4/3.5, other vendors). */
export function encodingForModel(model: string | null | undefined): TokenEncodingName {
  return O200K_MODEL.test(normalizeModelName(model ?? '')) ? 'o200k_base' : 'cl100k_base';
}

/** Lower-cased, without a `provider/` (or `accounts/x/models/`) prefix or a fine-tune `ft:` prefix. */
export function normalizeModelName(model: string): string {
  const name = model.trim().toLowerCase();
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base.startsWith('ft:') ? base.slice(3) : base;
}

/**
 * Longest text handed to the tokenizer at once. Byte-pair encoding is quadratic in the length of one
 * pre-tokenized piece, and a run of letters with no space (or CJK text, or a run of punctuation) is
 * one piece: 40,000 letters took 6.8 s, 400 KB about two minutes, on the event loop. Each segment
 * costs at most a bounded amount, so a text costs time linear in its length (1 MB of letters:
 * about 50 ms).
 */
export const TOKEN_SEGMENT_CHARS_MAX = 512;
/** Text tokenized between two yields to the event loop in estimateCompletionTokensYielding (about 1 ms). */
export const TOKEN_YIELD_EVERY_CHARS = 16 * 1024;

const LETTER = /\p{L}/u;
const WHITESPACE = /\s/;

/**
 * Where a segment may end without changing the count: before a space that follows a non-space and
 * precedes a letter ("word| word", "x=| y"). In both encodings' pre-tokenizer such a space begins a
 * new piece (" word"), and nothing before it reaches past it, so counting each side apart gives the
 * same tokens. Ordinary text is cut only there (counts equal to the whole text's, property-tested);
 * a stretch of TOKEN_SEGMENT_CHARS_MAX without such a place is cut at the limit (between UTF-16
 * surrogates never), which may move a token or two per cut: it is an estimate of text no tokenizer
 * splits well anyway.
 */
function isCleanCut(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x20 && !WHITESPACE.test(text[at - 1]!) && LETTER.test(text[at + 1] ?? '');
}

/** The text in consecutive segments of 1..TOKEN_SEGMENT_CHARS_MAX characters (their concatenation is the text). */
export function* tokenSegments(text: string, charsMax: number = TOKEN_SEGMENT_CHARS_MAX): Generator<string> {
  let start = 0;
  while (text.length - start > charsMax) {
    let end = start + charsMax;
    while (end > start + 1 && !isCleanCut(text, end)) end -= 1;
    if (end === start + 1) {
      end = start + charsMax;
      // Never between the two halves of a surrogate pair.
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    yield text.slice(start, end);
    start = end;
  }
  if (start < text.length) yield text.slice(start);
}

/** Tokens of a text, in bounded segments (linear time; see TOKEN_SEGMENT_CHARS_MAX). */
export function countTextTokens(text: string, encoding: TokenEncodingName): number {
  if (text === '') return 0;
  const encoder = loadEncoding(encoding);
  let tokens = 0;
  for (const segment of tokenSegments(text)) tokens += encoder.countTokens(segment, PLAIN_TEXT);
  return tokens;
}

function completionTexts(input: CompletionTokenInput): string[] {
  return [input.content, ...(input.toolCalls ?? []).flatMap((call) => [call.name, call.arguments_raw])];
}

/**
 * Tokens of the visible completion: content plus each tool call's name and raw arguments.
 * The few tokens of chat/tool-call framing the provider adds are not counted (not knowable offline).
 */
export function estimateCompletionTokens(input: CompletionTokenInput): TokenEstimate {
  const encoding = encodingForModel(input.model);
  let tokens = 0;
  for (const text of completionTexts(input)) tokens += countTextTokens(text, encoding);
  return { tokens, encoding };
}

/** Lets the event loop run what waits (other requests' I/O) before the next slice of work. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * estimateCompletionTokens for a request handler: the same count, tokenized in slices of about
 * TOKEN_YIELD_EVERY_CHARS with a turn of the event loop between them, so a 16 MiB completion
 * (hundreds of milliseconds of tokenizing) does not hold up every other request meanwhile.
 */
export async function estimateCompletionTokensYielding(input: CompletionTokenInput, options: { yieldEveryChars?: number } = {}): Promise<TokenEstimate> {
  const yieldEveryChars = options.yieldEveryChars ?? TOKEN_YIELD_EVERY_CHARS;
  const encoding = encodingForModel(input.model);
  let tokens = 0;
  let sinceYield = 0;
  for (const text of completionTexts(input)) {
    if (text === '') continue;
    const encoder = loadEncoding(encoding);
    for (const segment of tokenSegments(text)) {
      tokens += encoder.countTokens(segment, PLAIN_TEXT);
      sinceYield += segment.length;
      if (sinceYield >= yieldEveryChars) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
  }
  return { tokens, encoding };
}

/** Encodings loaded so far (they load on first use). */
export function loadedTokenEncodings(): TokenEncodingName[] {
  return [...loadedEncodings.keys()];
}

function loadEncoding(encoding: TokenEncodingName): EncodingModule {
  let loaded = loadedEncodings.get(encoding);
  if (loaded === undefined) {
    loaded = requireModule(ENCODING_MODULES[encoding]) as EncodingModule;
    loadedEncodings.set(encoding, loaded);
  }
  return loaded;
}
