// WHATWG `text/event-stream` framing, fed with raw bytes in arbitrary chunks.
// Rules F1-F6 of test/fixtures/sse/README.md; [DONE] (F7) is the caller's business.
import { EVENT_BYTES_MAX, utf8ByteLength } from './reassembler-types.js';

export interface SseEvent {
  /** The `event:` field, or 'message' when none was sent. */
  type: string;
  /** The `data:` lines joined with '\n' (never empty). */
  data: string;
}

export interface SseEventHandler {
  /** Return false to stop decoding: the rest of the body is then ignored. */
  onEvent(event: SseEvent): boolean;
  /** Called once, after which the decoder is stopped. */
  onEventTooLarge(eventBytes: number): void;
}

export interface SseDecoderEnd {
  /** The body ended inside an event: a cut-off line, or data lines no blank line closed. */
  midEvent: boolean;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const LINE_END = /[\r\n]/g;

export class SseEventDecoder {
  // Streaming decode (F1): a multi-byte character split across chunks stays whole. Invalid bytes
  // become U+FFFD and a leading BOM is dropped once, as the WHATWG decoder does.
  private readonly textDecoder = new TextDecoder('utf-8');
  private partialLine = '';
  private partialLineBytes = 0;
  /** The previous text ended in CR: an LF at the start of the next one ends no second line (F2). */
  private skipLeadingLf = false;
  private data = '';
  private dataBytes = 0;
  private hasData = false;
  private eventType = '';
  private stopped = false;

  constructor(
    private readonly handler: SseEventHandler,
    private readonly eventBytesMax: number = EVENT_BYTES_MAX,
  ) {}

  push(bytes: Uint8Array): void {
    if (this.stopped) return;
    this.consumeText(this.textDecoder.decode(bytes, { stream: true }));
  }

  /** Flushes the UTF-8 decoder and drops the unterminated event, if any (F6). */
  end(): SseDecoderEnd {
    if (!this.stopped) this.consumeText(this.textDecoder.decode());
    const midEvent = !this.stopped && (this.partialLine !== '' || this.hasData);
    this.stop();
    return { midEvent };
  }

  /** Stops decoding and releases the buffers. */
  stop(): void {
    this.stopped = true;
    this.partialLine = '';
    this.data = '';
  }

  private consumeText(text: string): void {
    let start = 0;
    if (this.skipLeadingLf && text.length > 0) {
      this.skipLeadingLf = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    while (start < text.length && !this.stopped) {
      LINE_END.lastIndex = start;
      const match = LINE_END.exec(text);
      if (match === null) {
        this.appendPartialLine(text.slice(start));
        return;
      }
      const end = match.index;
      this.completeLine(text.slice(start, end));
      start = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (start === text.length) this.skipLeadingLf = true;
        else if (text.charCodeAt(start) === LF) start++;
      }
    }
  }

  private appendPartialLine(piece: string): void {
    this.partialLine += piece;
    this.partialLineBytes += utf8ByteLength(piece);
    // Checked on the partial line too, so a line that never ends cannot grow without bound.
    this.checkEventSize(this.partialLineBytes);
  }

  private completeLine(rest: string): void {
    const line = this.partialLine + rest;
    const lineBytes = this.partialLineBytes + utf8ByteLength(rest);
    this.partialLine = '';
    this.partialLineBytes = 0;
    if (this.checkEventSize(lineBytes)) this.processLine(line, lineBytes);
  }

  /** Same test for a partial and a complete line, so the outcome does not depend on chunking. */
  private checkEventSize(lineBytes: number): boolean {
    const eventBytes = this.dataBytes + lineBytes;
    if (eventBytes <= this.eventBytesMax) return true;
    this.stop();
    this.handler.onEventTooLarge(eventBytes);
    return false;
  }

  private processLine(line: string, lineBytes: number): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.charCodeAt(0) === COLON) return; // comment / keep-alive (F3)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field === 'data') {
      let valueStart = colon < 0 ? line.length : colon + 1;
      if (line.charCodeAt(valueStart) === SPACE) valueStart++;
      // "data" and the separator are ASCII, so the value's size is the rest of the line's.
      this.appendData(line.slice(valueStart), lineBytes - valueStart);
    } else if (field === 'event') {
      const value = colon < 0 ? '' : line.slice(colon + 1);
      this.eventType = value.charCodeAt(0) === SPACE ? value.slice(1) : value;
    }
    // `id`, `retry` and unknown fields are ignored (F3).
  }

  private appendData(value: string, valueBytes: number): void {
    // Multiple data lines of one event are joined with '\n' (F4).
    this.data = this.hasData ? `${this.data}\n${value}` : value;
    this.dataBytes += this.hasData ? valueBytes + 1 : valueBytes;
    this.hasData = true;
  }

  private dispatch(): void {
    const type = this.eventType === '' ? 'message' : this.eventType;
    const data = this.data;
    const hasData = this.hasData;
    this.eventType = '';
    this.data = '';
    this.dataBytes = 0;
    this.hasData = false;
    // No data line (F5), or an empty data buffer (WHATWG): nothing to dispatch.
    if (!hasData || data === '') return;
    if (!this.handler.onEvent({ type, data })) this.stop();
  }
}
