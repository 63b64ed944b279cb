/**
 * JsonLinesBytes writes the bytes renderJsonLines's text encodes to: the scan's statements and N+1 findings are
 * written that way (no 20 MB string), so the two must never differ, whatever the text holds and however long it is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonLinesBytes, renderJsonLines } from '../../../src/cli/output';

function both(objects: unknown[], initial?: number): { text: Uint8Array; bytes: Uint8Array } {
  const out = new JsonLinesBytes(initial);
  for (const o of objects) out.add(o);
  assert.equal(out.count, objects.length);
  return { text: new TextEncoder().encode(renderJsonLines(objects)), bytes: out.bytes() };
}

void test('JsonLinesBytes: the same bytes as renderJsonLines for ASCII, two- to four-byte UTF-8, escapes, a lone surrogate and undefined', () => {
  const objects = [
    { file: 'a.go', line: 1, sql: 'SELECT 1', loops: [] },
    { message: 'N+1: "SELECT * FROM t WHERE x = …" runs once', name: 'ünïcödé 日本語 😀' },
    { sql: 'a\nb\t"c"\\d\x00\x1b', lone: 'x\ud800y', trail: '\udfff' },
    undefined,
    'just a string',
    42,
    null,
  ];
  const { text, bytes } = both(objects);
  assert.deepEqual(Buffer.from(bytes), Buffer.from(text));
});

void test('JsonLinesBytes: output past its first buffer (and past one piece of text) grows it and keeps every byte in order', () => {
  const objects = Array.from({ length: 5000 }, (_, i) => ({ i, sql: `SELECT ${'x'.repeat(i % 97)} FROM t${i} — é`, path: [`f@a${i}.go:${i}`] }));
  const { text, bytes } = both(objects, 16);
  assert.ok(bytes.length > 1 << 16);
  assert.deepEqual(Buffer.from(bytes), Buffer.from(text));
});

void test('JsonLinesBytes: nothing added gives no bytes; each writer owns its buffer whole (it may be transferred to another thread)', () => {
  assert.equal(new JsonLinesBytes().bytes().length, 0);
  const a = new JsonLinesBytes(8);
  a.add({ x: 1 });
  const b = new JsonLinesBytes(8);
  b.add({ y: 2 });
  const ab = a.bytes();
  const bb = b.bytes();
  assert.notEqual(ab.buffer, bb.buffer);
  assert.equal(ab.byteOffset, 0);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(ab, [ab.buffer as ArrayBuffer]);
  assert.equal(ab.buffer.byteLength, 0);
  port1.close();
  port2.close();
});
