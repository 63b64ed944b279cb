/**
 * Ranges cut while they are read (work stealing), for logRanges.ts: the first reader starts on the
 * whole file; a thread that is free (a reading thread once it has started, any reader once its range
 * is done) asks the reader with the most bytes left to give up the second half of them. The owner
 * answers between two reads of its range (every chunk), where it knows how far it got: it cuts at
 * the first line start past the middle of what it has left (`cutAt`), keeps the first half and hands
 * over the second. So a thread that starts late, or that the machine slows down, reads less, and the
 * threads end about together whatever the load; the cut is decided when it is needed, not up front.
 *
 * Shared memory, per thread t:
 *   ctl[4t]     its range's door: 0 open (a thief may ask), -1 closed (no range, or ending), k + 1 thief k asks;
 *   ctl[4t + 1] its own request as a thief: WAITING, then GRANTED or REFUSED by the owner asked;
 *   at[4t], at[4t + 1]          how far its range is read, and where the range ends (the owner writes both);
 *   at[4t + 2], at[4t + 3]      the range granted to it as a thief.
 * The owner writes `at` and the grant before the Atomics store that publishes them.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** What every thread of one read is given: the shared arrays and the smallest half worth handing over. */
export interface SplitShared {
  ctl: SharedArrayBuffer;
  at: SharedArrayBuffer;
  threads: number;
  minBytes: number;
}

/** Atomics.waitAsync (in Node since 16; not in this TypeScript's library). */
const waitAsync = (Atomics as unknown as { waitAsync: (a: Int32Array, i: number, v: number, ms: number) => { async: boolean; value: Promise<string> | string } }).waitAsync;

const OPEN = 0;
const CLOSED = -1;
const WAITING = 1;
const GRANTED = 2;
const REFUSED = 3;

/** New shared arrays for `threads` threads, every door closed. */
export function splitShared(threads: number, minBytes: number): SplitShared {
  const shared = { ctl: new SharedArrayBuffer(16 * threads), at: new SharedArrayBuffer(32 * threads), threads, minBytes };
  new Int32Array(shared.ctl).fill(CLOSED);
  return shared;
}

/** One thread's side of the splitting: as the owner of a range, and as a thief looking for one. */
export class RangeSplits {
  private readonly ctl: Int32Array;
  private readonly at: Float64Array;
  /** The reads between two checks: small enough that a thief waits little, at most 256 KiB. */
  readonly chunkBytes: number;

  /** `cutAt(from, end)`: the first range start at or after `from` and before `end`, or -1. */
  constructor(private readonly shared: SplitShared, private readonly me: number, private readonly cutAt: (from: number, end: number) => number) {
    this.ctl = new Int32Array(shared.ctl);
    this.at = new Float64Array(shared.at);
    this.chunkBytes = Math.min(1 << 18, Math.max(1 << 12, shared.minBytes >> 2));
  }

  /** Starts owning [start, end): thieves may ask for its second half from now on. */
  open(start: number, end: number): void {
    this.at[4 * this.me] = start;
    this.at[4 * this.me + 1] = end;
    Atomics.store(this.ctl, 4 * this.me, OPEN);
  }

  /** Between two reads of the range, at `position` (every line before it read): answers a thief, if one asks. Returns the range's end (lower once a half was handed over). */
  check(position: number): number {
    const me = 4 * this.me;
    this.at[me] = position;
    const asking = Atomics.load(this.ctl, me);
    if (asking > 0) {
      const thief = asking - 1;
      const end = this.at[me + 1];
      const cut = end - position >= 2 * this.shared.minBytes ? this.cutAt(position + Math.floor((end - position) / 2), end) : -1;
      if (cut > position && cut < end) {
        this.at[4 * thief + 2] = cut;
        this.at[4 * thief + 3] = end;
        this.at[me + 1] = cut;
      }
      Atomics.store(this.ctl, me, OPEN);
      this.answer(thief, cut > position && cut < end ? GRANTED : REFUSED);
    }
    return this.at[me + 1];
  }

  /** The range is read (or its reading failed): no more halves from it; a thief asking now is refused. */
  close(): void {
    const asking = Atomics.exchange(this.ctl, 4 * this.me, CLOSED);
    if (asking > 0) this.answer(asking - 1, REFUSED);
  }

  private answer(thief: number, verdict: number): void {
    Atomics.store(this.ctl, 4 * thief + 1, verdict);
    Atomics.notify(this.ctl, 4 * thief + 1);
  }

  /**
   * Asks the reader with the most left for half of it. Returns the thread asked (its answer comes
   * to waitFor), -2 when another thief is being answered by every candidate (ask again shortly),
   * or -1 when no range has enough left to be worth cutting.
   */
  private ask(): number {
    const { threads, minBytes } = this.shared;
    let best = -1;
    let most = 2 * minBytes;
    let busy = false;
    for (let t = 0; t < threads; t++) {
      if (t === this.me) continue;
      const door = Atomics.load(this.ctl, 4 * t);
      if (door === CLOSED) continue;
      const left = this.at[4 * t + 1] - this.at[4 * t];
      if (left < most) continue;
      if (door !== OPEN) { busy = true; continue; }
      best = t;
      most = left;
    }
    if (best < 0) return busy ? -2 : -1;
    Atomics.store(this.ctl, 4 * this.me + 1, WAITING);
    return Atomics.compareExchange(this.ctl, 4 * best, OPEN, this.me + 1) === OPEN ? best : -2;
  }

  /** The range granted, now this thread's own (open to thieves in turn), or undefined when refused. */
  private granted(): [number, number] | undefined {
    if (Atomics.load(this.ctl, 4 * this.me + 1) !== GRANTED) return undefined;
    const range: [number, number] = [this.at[4 * this.me + 2], this.at[4 * this.me + 3]];
    this.open(range[0], range[1]);
    return range;
  }

  /** A reading thread's next range: [start, end) handed over by another reader, or undefined when none is worth cutting. Blocks while the owner asked reads on to its next check. */
  steal(): [number, number] | undefined {
    for (;;) {
      const asked = this.ask();
      if (asked === -1) return undefined;
      if (asked === -2) { Atomics.wait(this.ctl, 4 * this.me + 1, WAITING, 1); continue; }
      while (Atomics.load(this.ctl, 4 * this.me + 1) === WAITING) Atomics.wait(this.ctl, 4 * this.me + 1, WAITING);
      const got = this.granted();
      if (got) return got;
    }
  }

  /** steal for the main thread, whose event loop must keep running (the other threads' replies and failures arrive on it); stops asking once `stop()` is true. */
  async stealAsync(stop: () => boolean): Promise<[number, number] | undefined> {
    while (!stop()) {
      const asked = this.ask();
      if (asked === -1) return undefined;
      if (asked !== -2) {
        while (Atomics.load(this.ctl, 4 * this.me + 1) === WAITING && !stop()) {
          const w = waitAsync(this.ctl, 4 * this.me + 1, WAITING, 100);
          if (w.async) await w.value;
        }
        const got = this.granted();
        if (got) return got;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    return undefined;
  }
}

/**
 * The first line start at or after `from` (after a `\n` at from − 1 or later) and before `limit`
 * that starts with `header` (any line start without one); -1 when none.
 */
export function nextRangeStart(fd: number, buf: Buffer, from: number, limit: number, header: Buffer | undefined): number {
  let pos = from - 1; // why: a `\n` just before `from` makes `from` itself a line start
  while (pos < limit) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    if (n <= 0) return -1;
    for (let i = 0; ;) {
      const nl = buf.indexOf(10, i);
      if (nl < 0 || nl >= n) break;
      const at = pos + nl + 1;
      if (at >= limit) return -1;
      if (!header || headerAt(fd, buf, n, nl + 1, at, header)) return at;
      i = nl + 1;
    }
    pos += n;
  }
  return -1;
}

/** Whether the line at file offset `at` (buf[off] when read) starts with `header`. */
function headerAt(fd: number, buf: Buffer, n: number, off: number, at: number, header: Buffer): boolean {
  const len = header.length;
  if (off + len <= n) return buf.compare(header, 0, len, off, off + len) === 0;
  const b = Buffer.alloc(len);
  return readSync(fd, b, 0, len, at) === len && b.equals(header);
}

/** The `cutAt` of RangeSplits for a file: range starts are line starts with `header` (any line start without one). */
export function rangeCutter(path: string, header: Buffer | undefined): (from: number, end: number) => number {
  const buf = Buffer.allocUnsafe(1 << 12);
  return (from, end) => {
    const fd = openSync(path, 'r');
    try {
      return nextRangeStart(fd, buf, from, Math.min(end, fstatSync(fd).size), header);
    } finally {
      closeSync(fd);
    }
  };
}
