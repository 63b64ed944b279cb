/** The SSH worker's shared ring: every byte comes out once, in order, and nothing unread is written over. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RingWriter } from '../../../src/node/ssh/ringWriter';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s % n; };
}

/**
 * Pushes `total` numbered bytes in packets of random size; a reader takes runs and acknowledges
 * them late and in random amounts. What it reads at acknowledgement time must still be what was
 * announced (the writer never wrote over it) and, joined, the input.
 */
function roundTrip(seed: number, size: number, batch: number, total: number): void {
  const rnd = random(seed);
  const input = Buffer.alloc(total);
  for (let i = 0; i < total; i++) input[i] = (i * 31 + (i >> 8)) & 0xff;
  const runs: { off: number; n: number; copy: Buffer }[] = [];
  const writer = new RingWriter(size, batch, (off, n) => {
    assert.ok(off >= 0 && off + n <= size && n > 0 && n <= batch, `run ${off}+${n} outside the ring`);
    runs.push({ off, n, copy: Buffer.from(view.subarray(off, off + n)) });
  });
  const view = Buffer.from(writer.shared);
  const out: Buffer[] = [];
  let sent = 0;
  while (sent < total || runs.length || writer.pending || writer.backlogged) {
    if (sent < total && rnd(3) > 0) {
      const n = Math.min(total - sent, 1 + rnd(batch * 2));
      writer.push(input.subarray(sent, sent + n));
      sent += n;
      assert.ok(writer.used <= size);
    } else if (runs.length && rnd(2) === 0) {
      const run = runs.shift()!;
      assert.deepEqual(view.subarray(run.off, run.off + run.n), run.copy, 'an unacknowledged run was written over');
      out.push(run.copy);
      writer.ack(run.n);
    } else {
      writer.flush();
    }
  }
  assert.deepEqual(Buffer.concat(out), input);
}

void test('a stream much longer than the ring comes out whole and in order', () => {
  for (let seed = 1; seed <= 20; seed++) roundTrip(seed, 1024, 256, 50_000);
});

void test('a ring that is one batch long, and packets larger than the ring', () => {
  roundTrip(7, 256, 256, 20_000);
  roundTrip(8, 300, 128, 20_000);
});

void test('what does not fit waits, copied, and moves in as acknowledgements free room', () => {
  const announced: [number, number][] = [];
  const w = new RingWriter(8, 4, (off, n) => announced.push([off, n]));
  const packet = Buffer.from('abcdefghij');
  w.push(packet);
  packet.fill(0); // the caller reuses its memory
  assert.deepEqual(announced, [[0, 4], [4, 4]]);
  assert.equal(w.backlogged, true);
  assert.equal(w.used, 8);
  w.ack(4);
  assert.equal(w.backlogged, false);
  assert.equal(w.pending, 2);
  w.flush();
  assert.deepEqual(announced, [[0, 4], [4, 4], [0, 2]]);
  assert.equal(Buffer.from(w.shared).toString('latin1', 0, 2), 'ij');
  assert.throws(() => w.ack(7), /acknowledged 7 bytes with 6 announced/);
});
