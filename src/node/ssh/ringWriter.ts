/**
 * The writing side of a ring of bytes in memory two threads share (SharedArrayBuffer): what is
 * pushed is copied in and announced by `send(offset, length)` in runs of at most `batch` bytes,
 * each run in one piece (a run stops at the ring's end; the next starts at 0). The reading side
 * reads a run in place and acknowledges it, in order, with ack(length); only then is that part of
 * the ring written again. What does not fit waits, copied, until acknowledgements make room.
 */
export class RingWriter {
  readonly shared: SharedArrayBuffer;
  private readonly ring: Buffer;
  /** Where the next byte goes. */
  private w = 0;
  /** Bytes written and not yet announced (they end at w). */
  private pendingBytes = 0;
  /** Bytes announced and not yet acknowledged (they end where the pending ones start). */
  private unacked = 0;
  private readonly waiting: Buffer[] = [];

  constructor(readonly size: number, readonly batch: number, private readonly send: (offset: number, length: number) => void) {
    if (!(batch > 0 && batch <= size)) throw new RangeError(`batch ${batch} must be within the ring's ${size} bytes`);
    this.shared = new SharedArrayBuffer(size);
    this.ring = Buffer.from(this.shared);
  }

  /** Bytes of the ring in use (announced or not), not counting what waits outside it. */
  get used(): number { return this.unacked + this.pendingBytes; }
  /** Bytes written and not yet announced. */
  get pending(): number { return this.pendingBytes; }
  /** True while some pushed bytes wait for room. */
  get backlogged(): boolean { return this.waiting.length > 0; }

  /** Takes `d`: into the ring as far as it has room (announcing every full run), the rest waits. */
  push(d: Buffer): void {
    const n = this.waiting.length ? 0 : this.write(d);
    // why: the caller may reuse d's memory once this returns.
    if (n < d.length) this.waiting.push(Buffer.from(d.subarray(n)));
  }

  /** Announces what was written and not yet announced. */
  flush(): void {
    if (this.pendingBytes === 0) return;
    this.send(this.w - this.pendingBytes, this.pendingBytes);
    this.unacked += this.pendingBytes;
    this.pendingBytes = 0;
    if (this.w === this.size) this.w = 0;
  }

  /** The reader is done with the next `n` announced bytes: their room takes what waits. */
  ack(n: number): void {
    if (!(n > 0 && n <= this.unacked)) throw new RangeError(`acknowledged ${n} bytes with ${this.unacked} announced`);
    this.unacked -= n;
    while (this.waiting.length) {
      const d = this.waiting[0];
      const took = this.write(d);
      if (took < d.length) { this.waiting[0] = d.subarray(took); break; }
      this.waiting.shift();
    }
  }

  /** Drops what waits (the reader has gone). */
  discard(): void { this.waiting.length = 0; }

  private write(d: Buffer): number {
    let off = 0;
    while (off < d.length) {
      const n = Math.min(this.size - this.unacked - this.pendingBytes, this.size - this.w, this.batch - this.pendingBytes, d.length - off);
      if (n === 0) break;
      d.copy(this.ring, this.w, off, off + n);
      this.w += n;
      this.pendingBytes += n;
      off += n;
      if (this.pendingBytes === this.batch || this.w === this.size) this.flush();
    }
    return off;
  }
}
