// JSON writers: NDJSON (one JSON value per line, the reference's `-f json`)
// and the JSON array writer (the whole result as one array, the service's
// application/json), which the reference writes as "[" v1 "," v2 ... "]\n",
// or "[]\n" for no values.

import { Value } from '../../zed/value';
import { ByteSink, OutputBuffer, ValueWriter } from '../io';
import { JSONMarshaler } from './marshal';
import { JSONText } from './text';

export class NDJSONWriter implements ValueWriter {
  private out: OutputBuffer;
  private text = new JSONText(64 * 1024);
  private marshaler = new JSONMarshaler();

  constructor(sink: ByteSink) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    const text = this.text;
    try {
      for (const v of vals) {
        this.marshaler.marshal(text, v.type, v.buf, v.off, v.len);
        text.byte(0x0a);
        if (text.len >= 64 * 1024) await this.drain();
      }
    } finally {
      // On a value JSON cannot hold, the values before it still go out.
      await this.drain();
    }
  }

  private async drain(): Promise<void> {
    this.out.writeBytes(this.text.buf, 0, this.text.len);
    this.text.reset();
    if (this.out.full) await this.out.flush();
  }

  async close(): Promise<void> {
    await this.drain();
    await this.out.end();
  }
}

export class JSONArrayWriter implements ValueWriter {
  private out: OutputBuffer;
  private text = new JSONText(64 * 1024);
  private marshaler = new JSONMarshaler();
  private wrote = false;

  constructor(sink: ByteSink) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    const text = this.text;
    try {
      for (const v of vals) {
        const mark = text.len;
        text.byte(this.wrote ? 0x2c : 0x5b);
        try {
          this.marshaler.marshal(text, v.type, v.buf, v.off, v.len);
        } catch (e) {
          text.len = mark;
          throw e;
        }
        this.wrote = true;
        if (text.len >= 64 * 1024) await this.drain();
      }
    } finally {
      await this.drain();
    }
  }

  private async drain(): Promise<void> {
    this.out.writeBytes(this.text.buf, 0, this.text.len);
    this.text.reset();
    if (this.out.full) await this.out.flush();
  }

  async close(): Promise<void> {
    await this.drain();
    this.out.writeString(this.wrote ? ']\n' : '[]\n');
    await this.out.end();
  }
}
