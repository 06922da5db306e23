// Which upstream calls ledgerFetch bills, and in which wire format (api.md "Integrations
// (gateway)"): decided from the request alone (method, path, body), before the upstream answers.

/** The `format` query parameter of POST /v1/usage-events/stream and /response. */
export type WireFormat = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';

export interface BilledCall {
  /** Embeddings are billed from their `usage` as a usage event; the rest through the format routes. */
  kind: 'generation' | 'embeddings';
  /** The wire format of the answer (embeddings answer OpenAI's shape, reported from `usage`). */
  format: WireFormat;
  /** The model the request names (body `model`, or Gemini's `models/<model>:...` path segment). */
  requestModel: string | undefined;
  /** The request asks for a stream (body `stream: true`, or Gemini's `:streamGenerateContent`). */
  streamRequested: boolean;
}

const OPENAI_CHAT = /\/(?:chat\/)?completions$/;
const RESPONSES = /\/responses$/;
const MESSAGES = /\/messages$/;
const EMBEDDINGS = /\/embeddings$/;
// `.../models/gemini-2.5-flash:streamGenerateContent` (also `tunedModels/...`); the model may be percent-encoded.
const GEMINI = /\/(?:tuned)?[mM]odels\/([^/:]+):(generateContent|streamGenerateContent)$/;

function bodyModel(body: Record<string, unknown>): string | undefined {
  return typeof body.model === 'string' && body.model !== '' ? body.model : undefined;
}

/** The billed call a POST to `url` with this JSON body is, or undefined when it passes through untouched. */
export function billedCallOf(url: URL, body: Record<string, unknown>): BilledCall | undefined {
  const path = url.pathname;
  const streamRequested = body.stream === true;
  const gemini = GEMINI.exec(path);
  if (gemini) {
    return { kind: 'generation', format: 'gemini', requestModel: safeDecode(gemini[1]!), streamRequested: gemini[2] === 'streamGenerateContent' };
  }
  if (OPENAI_CHAT.test(path)) return { kind: 'generation', format: 'openai-chat', requestModel: bodyModel(body), streamRequested };
  if (RESPONSES.test(path)) return { kind: 'generation', format: 'openai-responses', requestModel: bodyModel(body), streamRequested };
  if (MESSAGES.test(path)) return { kind: 'generation', format: 'anthropic-messages', requestModel: bodyModel(body), streamRequested };
  if (EMBEDDINGS.test(path)) return { kind: 'embeddings', format: 'openai-chat', requestModel: bodyModel(body), streamRequested: false };
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Gemini's `streamGenerateContent` without `?alt=sse` streams one JSON array of
 * GenerateContentResponse objects; the ledger's stream route takes SSE, so each element becomes
 * one `data:` event. Undefined when the bytes are not such an array (a cut-off array is read up to
 * its last complete element).
 */
export function geminiJsonArrayAsSse(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return undefined;
  let elements: unknown[] | undefined;
  try {
    elements = JSON.parse(trimmed) as unknown[];
  } catch {
    elements = completeElementsOf(trimmed);
  }
  if (!Array.isArray(elements)) return undefined;
  return elements.map((element) => `data: ${JSON.stringify(element)}\r\n\r\n`).join('');
}

/** The complete top-level objects of a JSON array cut off part-way. */
function completeElementsOf(text: string): unknown[] {
  const elements: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 1; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') {
      if (depth === 0) start = i;
      depth += 1;
    } else if (char === '}') {
      depth -= 1;
      if (depth === 0 && start >= 0) {
        try {
          elements.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return elements;
        }
        start = -1;
      }
    }
  }
  return elements;
}
