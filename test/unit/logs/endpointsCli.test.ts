import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { endpointsCommand } from '../../../src/cli/commands/endpoints';
import { FIXTURES, REPO_ROOT } from '../../support/paths';

// why: a real CommonMark renderer (the one @vscode/vsce uses, already installed) decides what is live markup.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (o: object) => { render(s: string): string };

const dir = mkdtempSync(join(tmpdir(), 'qi-endpoints-cli-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string; order: string[] }> {
  const order: string[] = [];
  const sink = (name: string) => {
    const s = new PassThrough();
    let text = '';
    s.on('data', (d: Buffer) => { text += d.toString(); order.push(name); });
    return { s, text: () => text };
  };
  const out = sink('out');
  const err = sink('err');
  const code = await endpointsCommand.run(args, { stdout: out.s, stderr: err.s, env: {}, cwd: REPO_ROOT });
  await new Promise((r) => setImmediate(r));
  return { code, out: out.text(), err: err.text(), order };
}

const hostile = [
  '<script>alert(1)</script>', '/x/<img src=x onerror=alert(1)>', '/![p](https://evil.example/p.png)', '/[click](javascript:alert(1))',
  '/a|b|c', '/`code`/**bold**/_it_/~~s~~', '/=HYPERLINK("http://evil.example","x")', '=HYPERLINK("http://evil.example","x")',
  '=cmd|\' /C calc\'!A0', '+1+2', '@SUM(1+1)', '-2+3', '/multi\\r\\nline',
];

function hostileLog(): string {
  return hostile.map((u, i) => `method:${i % 2 ? 'GET' : 'POST'}\turi:${u}\tstatus:200\tsize:1\treqtime:0.0${10 + i}\n`).join('');
}

void test('md output of a hostile log renders as text: no tag, link, image, emphasis or extra cell', async () => {
  const log = join(dir, 'hostile.ltsv');
  writeFileSync(log, hostileLog());
  const { code, out } = await run([log, '--format', 'md', '--no-normalize', '--quiet']);
  assert.equal(code, 0);
  const html = new MarkdownIt({ html: true, linkify: false }).render(out);
  for (const tag of ['<script', '<img', '<a ', '<em>', '<strong>', '<code>', '<s>', '<del>']) assert.ok(!html.includes(tag), `${tag} in ${html}`);
  const rows = html.split('<tr>').slice(1);
  assert.equal(rows.length, hostile.length + 1);
  const cells = (r: string) => (r.match(/<t[dh][ >]/g) ?? []).length;
  for (const r of rows) assert.equal(cells(r), cells(rows[0]));
  for (const u of hostile) assert.ok(html.includes(u.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')), `the text ${u} is shown as it is`);
});

/** RFC 4180 reader (quotes, doubled quotes, separators and line breaks inside quotes). */
function parseCsv(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === sep) { row.push(cell); cell = ''; } else if (c === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else cell += c;
  }
  return rows;
}

void test('csv and tsv outputs of a hostile log hold no formula; line breaks stay inside their cell', async () => {
  const log = join(dir, 'hostile2.ltsv');
  writeFileSync(log, hostileLog());
  for (const [format, sep] of [['csv', ','], ['tsv', '\t']] as const) {
    const { code, out } = await run([log, '--format', format, '--no-normalize', '--quiet']);
    assert.equal(code, 0);
    const rows = parseCsv(out, sep);
    assert.equal(rows.length, hostile.length + 1);
    for (const r of rows) {
      assert.equal(r.length, rows[0].length);
      for (const cell of r) assert.ok(!/^[=+\-@\t\r]/.test(cell) || /^[-+]?\d+(\.\d+)?$/.test(cell), `formula cell ${cell}`);
    }
    const uris = rows.slice(1).map((r) => r[rows[0].indexOf('URI')]);
    assert.ok(uris.includes('/=HYPERLINK("http://evil.example","x")'), 'a formula-looking path not starting the cell stays as it is');
    assert.ok(uris.includes(`'=HYPERLINK("http://evil.example","x")`), 'a formula is shown as text');
    assert.ok(uris.includes(`'-2+3`));
  }
});

void test('endpoints refuses a slow log with exit 2 and one line', async () => {
  const { code, out, err } = await run([join(FIXTURES, 'logs', 'slow', 'mysql80.log')]);
  assert.equal(code, 2);
  assert.equal(out, '');
  assert.equal(err.trim().split('\n').length, 1);
  assert.match(err, /mysql80\.log: this looks like a MySQL slow log; use `query-insight slow`/);
});

void test('a damaged gzip: the lines before the damage reported, then the message, exit 3', async () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `method:GET\turi:/items/${i}\tstatus:200\tsize:1\treqtime:0.010\n`).join('');
  const gz = gzipSync(lines);
  const cut = join(dir, 'cut.ltsv.gz');
  writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
  const { code, out, err, order } = await run([cut, '--format', 'json']);
  assert.equal(code, 3);
  const rec = JSON.parse(out.trim()) as { count: number };
  assert.ok(rec.count > 1000 && rec.count < 5000, `${rec.count} requests before the cut`);
  const m = /cut\.ltsv\.gz: gzip data ends early after (\d+) lines \(truncated\?\)/.exec(err);
  assert.ok(m, err);
  // the last line before the damage may be cut (then malformed): the count names the whole lines
  assert.ok(Number(m[1]) === rec.count || Number(m[1]) === rec.count + 1, `${m[1]} vs ${rec.count}`);
  assert.equal(order[0], 'out', 'the report comes before the message');
  assert.match(err, /# ltsv: \d+ lines, \d+ requests, 1 endpoints/);
  assert.match(err, /response time from reqtime/);
});

void test('a log that does not exist: the error, with no empty table printed before it', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => { text += d.toString(); });
  await assert.rejects(endpointsCommand.run(['/nonexistent.log'], { stdout: out, stderr: new PassThrough(), env: {}, cwd: REPO_ROOT }),
    /cannot read \/nonexistent\.log: no such file/);
  assert.equal(text, '', 'nothing on stdout');
});
