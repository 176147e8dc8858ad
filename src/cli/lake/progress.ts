// The load command's progress display, as the reference shows it on a
// terminal: every half second one line "(done/inputs) read/total rate/s
// percent", redrawn in place, left showing its final state.

import { Writable } from 'node:stream';
import { ByteSource } from '../../formats/io';
import { abbrevBytes } from './lakefmt';

interface Input {
  read: number;
  done: boolean;
}

export class Progress {
  private inputs: Input[] = [];
  private total = 0;
  private lines = 0;
  private timer?: NodeJS.Timeout;
  /** (time, bytes read then) samples of the last second, for the rate. */
  private samples: [number, number][] = [];

  constructor(
    private out: Writable,
    private intervalMs = 500,
    private now: () => number = Date.now,
  ) {}

  /** Counts the bytes read from src (whose size, if known, adds to the total). */
  track(src: ByteSource, size: number | undefined): ByteSource {
    const input: Input = { read: 0, done: false };
    this.inputs.push(input);
    this.total += size ?? 0;
    return {
      read: async () => {
        const chunk = await src.read();
        if (chunk === null) input.done = true;
        else input.read += chunk.length;
        return chunk;
      },
    };
  }

  /** The status line. */
  line(): string {
    let read = 0;
    let done = 0;
    for (const i of this.inputs) {
      read += i.read;
      if (i.done) done++;
    }
    const t = this.now();
    this.samples.push([t, read]);
    while (this.samples.length > 1 && this.samples[0][0] < t - 1000) this.samples.shift();
    const rate = read - this.samples[0][1];
    let s = `(${done}/${this.inputs.length}) `;
    if (this.total === 0) s += `${abbrevBytes(read)} ${abbrevBytes(rate)}/s`;
    else
      s += `${abbrevBytes(read)}/${abbrevBytes(this.total)} ${abbrevBytes(rate)}/s ${((read / this.total) * 100).toFixed(2)}%`;
    return s + '\n';
  }

  /** Redraws the display in place. */
  update(): void {
    const text = this.line();
    this.out.write('\u001b[1A\u001b[2K'.repeat(this.lines) + text);
    this.lines = text.split('\n').length - 1;
  }

  start(): void {
    this.update();
    this.timer = setInterval(() => this.update(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the updates, leaving the final state shown. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.update();
  }
}
