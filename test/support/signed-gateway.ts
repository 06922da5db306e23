// What the signed-request tests share: a short completed SSE stream with provider usage (billed
// as is, no tokenizer) to sign and send to POST /v1/usage-events/stream.
export const SIGNED_SSE_BODY = [
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}',
  '',
  'data: [DONE]',
  '',
  '',
].join('\n');
