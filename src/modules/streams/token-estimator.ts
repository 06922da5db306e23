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

export function countTextTokens(text: string, encoding: TokenEncodingName): number {
  if (text === '') return 0;
  return loadEncoding(encoding).countTokens(text, PLAIN_TEXT);
}

/**
 * Tokens of the visible completion: content plus each tool call's name and raw arguments.
 * The few tokens of chat/tool-call framing the provider adds are not counted (not knowable offline).
 */
export function estimateCompletionTokens(input: CompletionTokenInput): TokenEstimate {
  const encoding = encodingForModel(input.model);
  let tokens = countTextTokens(input.content, encoding);
  for (const call of input.toolCalls ?? []) {
    tokens += countTextTokens(call.name, encoding) + countTextTokens(call.arguments_raw, encoding);
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
