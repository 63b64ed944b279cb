/**
 * The time on an access-log line, for a log's time span: nginx's $time_local (with its zone, with or
 * without the brackets of the combined layout), $time_iso8601 and $msec; anything else is no time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLogTime, spanOf, TimeSpanTracker } from '../../../src/core/logs/logTime';

const utc = Date.UTC(2024, 2, 2, 10, 0, 0);

void test('parseLogTime reads the three nginx time variables, in any zone', () => {
  assert.equal(parseLogTime('02/Mar/2024:19:00:00 +0900'), utc);
  assert.equal(parseLogTime('[02/Mar/2024:05:00:00 -0500]'), utc);
  assert.equal(parseLogTime('2/Mar/2024:10:00:00 +0000'), utc);
  assert.equal(parseLogTime('2024-03-02T19:00:00+09:00'), utc);
  assert.equal(parseLogTime('2024-03-02T10:00:00Z'), utc);
  assert.equal(parseLogTime('2024-03-02T19:00:00+0900'), utc);
  assert.equal(parseLogTime('1709373600.250'), utc + 250);
  assert.equal(parseLogTime('1709373600'), utc);
});

void test('parseLogTime: not a time, or an impossible one, is undefined', () => {
  for (const t of ['', '-', 'yesterday', '02/Foo/2024:10:00:00 +0900', '02/Mar/2024:10:00 +0900', '2024-03-02', '12.5', '2024-13-45T99:00:00Z']) {
    assert.equal(parseLogTime(t), undefined, t);
  }
});

void test('TimeSpanTracker keeps the first and the last time seen; absorbing ranges in order gives the same span', () => {
  const enc = new TextEncoder();
  const lines = ['02/Mar/2024:19:00:00 +0900', '02/Mar/2024:19:00:30 +0900', '02/Mar/2024:19:01:00 +0900'].map((t) => enc.encode(`x ${t} y`));
  const whole = new TimeSpanTracker();
  for (const b of lines) whole.see(b, 2, b.length - 2);
  assert.deepEqual(spanOf(whole.texts()), { from: '2024-03-02T10:00:00.000Z', to: '2024-03-02T10:01:00.000Z' });
  const a = new TimeSpanTracker();
  a.see(lines[0], 2, lines[0].length - 2);
  const b = new TimeSpanTracker();
  for (const l of lines.slice(1)) b.see(l, 2, l.length - 2);
  const merged = new TimeSpanTracker();
  merged.absorb(a.texts());
  merged.absorb(new TimeSpanTracker().texts());
  merged.absorb(b.texts());
  assert.deepEqual(merged.texts(), whole.texts());
  assert.equal(spanOf(new TimeSpanTracker().texts()), undefined);
});
