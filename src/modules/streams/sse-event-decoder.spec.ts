import { SseEventDecoder, type SseDecoderEnd, type SseEvent } from './sse-event-decoder.js';
import { reassembleSse } from './sse-reassembler.js';
import { splitEvery, toBytes } from './testing/sse-test-helpers.js';

interface Decoded {
  events: SseEvent[];
  end: SseDecoderEnd;
  tooLarge: number;
}

function decode(chunks: Array<string | Uint8Array>, eventBytesMax?: number): Decoded {
  const events: SseEvent[] = [];
  let tooLarge = 0;
  const decoder = new SseEventDecoder(
    {
      onEvent: (event) => {
        events.push(event);
        return true;
      },
      onEventTooLarge: () => {
        tooLarge++;
      },
    },
    eventBytesMax,
  );
  for (const chunk of chunks) decoder.push(toBytes(chunk));
  return { events, end: decoder.end(), tooLarge };
}

const message = (data: string): SseEvent => ({ type: 'message', data });

describe('SseEventDecoder framing (F1-F6)', () => {
  it('F2: LF, CRLF and CR-only line endings', () => {
    expect(decode(['data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r\n\n']).events).toEqual(
      ['a', 'b', 'c', 'd'].map(message),
    );
  });

  it('F2: a CR at the end of one chunk and an LF at the start of the next are one line ending', () => {
    // Counted as two endings, the LF would be a blank line and split the event in two.
    expect(decode(['data: {"a":1}\r', '\ndata: 2\r', '\n\r', '\n']).events).toEqual([message('{"a":1}\n2')]);
  });

  it('F2: a CR at the end of a chunk followed by other text still ends the line', () => {
    expect(decode(['data: x\r', 'data: y\r', '\r']).events).toEqual([message('x\ny')]);
  });

  it('F2: a lone CR chunk followed by an empty chunk keeps the pending-LF state', () => {
    expect(decode(['data: x\r', '', '\n', '\r\n']).events).toEqual([message('x')]);
  });

  it('F1: multi-byte characters split across chunks stay whole', () => {
    const body = toBytes('data: 中文 😀 é\n\n');
    expect(decode(splitEvery(body, 1)).events).toEqual([message('中文 😀 é')]);
  });

  it('F1: invalid UTF-8 becomes U+FFFD, and a leading BOM is dropped once', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...toBytes('data: a'), 0xff, ...toBytes('\n\n')]);
    expect(decode(splitEvery(body, 1)).events).toEqual([message('a\uFFFD')]);
    expect(decode(['data: x\n\n', '\uFEFFdata: y\n\n']).events).toEqual([message('x')]);
  });

  it('F3: comments and id/retry/unknown fields are ignored; "data:" needs no space; one space is stripped', () => {
    const body = ': keep-alive\nid: 42\nretry: 3000\nfoo: bar\ndata:tight\ndata:  two spaces\n\n';
    expect(decode([body]).events).toEqual([message('tight\n two spaces')]);
  });

  it('F3: a field name must match exactly (no trimming, case-sensitive)', () => {
    expect(decode(['Data: x\n data: y\ndata : z\n\n']).events).toEqual([]);
  });

  it('F3: `data` with no colon is a data line with an empty value', () => {
    expect(decode(['data\ndata\n\n']).events).toEqual([message('\n')]);
  });

  it('F4: multiple data lines are joined with \\n', () => {
    expect(decode(['data: {"a":\ndata: 1}\n\n']).events).toEqual([message('{"a":\n1}')]);
  });

  it('F5: a blank line after a comment, retry or event-only block dispatches nothing', () => {
    expect(decode([': ping\n\nretry: 5\n\nevent: error\n\n\n\n']).events).toEqual([]);
  });

  it('F5: a single empty data line dispatches nothing (WHATWG: empty data buffer)', () => {
    expect(decode(['data:\n\ndata: \n\n']).events).toEqual([]);
  });

  it('the event type applies to one event only and defaults to "message"', () => {
    expect(decode(['event: error\ndata: e\n\ndata: m\n\nevent:error\ndata: x\n\n']).events).toEqual([
      { type: 'error', data: 'e' },
      message('m'),
      { type: 'error', data: 'x' },
    ]);
  });

  it('F6: an unterminated event is dropped at end of stream, and reported as mid-event', () => {
    expect(decode(['data: a\n\ndata: b\n'])).toMatchObject({ events: [message('a')], end: { midEvent: true } });
    expect(decode(['data: a\n\ndata: {"half'])).toMatchObject({ events: [message('a')], end: { midEvent: true } });
    expect(decode(['data: a\n\n'])).toMatchObject({ events: [message('a')], end: { midEvent: false } });
    expect(decode(['data: a\n\n: ping\n'])).toMatchObject({ end: { midEvent: false } });
  });

  it('a handler returning false stops decoding', () => {
    const events: string[] = [];
    const decoder = new SseEventDecoder({
      onEvent: (event) => {
        events.push(event.data);
        return false;
      },
      onEventTooLarge: () => undefined,
    });
    decoder.push(toBytes('data: 1\n\ndata: 2\n\n'));
    expect(events).toEqual(['1']);
    expect(decoder.end().midEvent).toBe(false);
  });

  it('eventBytesMax bounds one event, also a line that never ends', () => {
    expect(decode(['data: 12345\n\n'], 11).tooLarge).toBe(0);
    expect(decode(['data: 123456\n\n'], 11).tooLarge).toBe(1);
    // Data already held counts: 2 bytes of data + the 8-byte second line > 9.
    expect(decode(['data: 12\ndata: 34\n\n'], 9).tooLarge).toBe(1);
    expect(decode(['data: 12\n\ndata: 34\n\n'], 9).tooLarge).toBe(0);
    const endless = decode(['data: ', ...Array.from({ length: 100 }, () => 'xxxxxxxxxx')], 64);
    expect(endless).toMatchObject({ tooLarge: 1, events: [] });
  });
});

describe('framing through the reassembler', () => {
  const chunk = (content: string): string =>
    `{"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}`;

  it('CR-only line endings reassemble', () => {
    const body = `data: ${chunk('a')}\r\r: c\r\rdata: ${chunk('b')}\r\rdata: [DONE]\r\r`;
    expect(reassembleSse(body)).toMatchObject({ content: 'ab', done: true, truncated: false });
    expect(reassembleSse(splitEvery(toBytes(body), 1)).content).toBe('ab');
  });

  it('F7: [DONE] ends the stream, also written `data:[DONE]`', () => {
    const body = `data: ${chunk('a')}\n\ndata:[DONE]\n\ndata: ${chunk('b')}\n\n`;
    expect(reassembleSse(body)).toMatchObject({ content: 'a', done: true, events: 2 });
  });

  it('F6: an event with a complete data line but no blank line is dropped', () => {
    const body = `data: ${chunk('a')}\n\ndata: ${chunk('b')}\n`;
    expect(reassembleSse(body)).toMatchObject({ content: 'a', truncated: true });
  });
});
