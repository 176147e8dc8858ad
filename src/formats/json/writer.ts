// JSON writers: NDJSON (one JSON value per line, the reference's `-f json`)
// and the JSON array writer (the whole result as one array, the service's
// application/json), which the reference writes as "[" v1 "," v2 ... "]\n",
// or "[]\n" for no values. Values are marshaled straight into the output
// buffer; on a value JSON cannot hold, the values before it still go out.

import { Value } from '../../zed/value';
import { ByteSink, OutputBuffer, ValueWriter } from '../io';
import { JSONMarshaler } from './marshal';

export class NDJSONWriter implements ValueWriter {
  private out: OutputBuffer;
  private marshaler = new JSONMarshaler();

  constructor(sink: ByteSink) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    const out = this.out;
    for (const v of vals) {
      this.marshaler.marshal(out, v.type, v.buf, v.off, v.len);
      out.byte(0x0a);
      if (out.full) await out.flush();
    }
  }

  async close(): Promise<void> {
    await this.out.end();
  }
}

export class JSONArrayWriter implements ValueWriter {
  private out: OutputBuffer;
  private marshaler = new JSONMarshaler();
  private wrote = false;

  constructor(sink: ByteSink) {
    this.out = new OutputBuffer(sink);
  }

  async write(vals: Value[]): Promise<void> {
    const out = this.out;
    for (const v of vals) {
      const mark = out.len;
      out.byte(this.wrote ? 0x2c : 0x5b);
      try {
        this.marshaler.marshal(out, v.type, v.buf, v.off, v.len);
      } catch (e) {
        out.len = mark;
        throw e;
      }
      this.wrote = true;
      if (out.full) await out.flush();
    }
  }

  async close(): Promise<void> {
    this.out.ascii(this.wrote ? ']\n' : '[]\n');
    await this.out.end();
  }
}
