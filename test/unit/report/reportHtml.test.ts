/** The report page's shell: strict CSP with a fresh nonce, only the extension's own script and stylesheet. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeNonce, reportCsp, reportHtml } from '../../../src/extension/report/reportHtml';

const cspSource = 'https://file+.vscode-resource.vscode-cdn.net';

void test('the CSP allows nothing by default, the script only by nonce, styles and images only from the extension', () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9+/]{22}==$/);
  assert.notEqual(nonce, makeNonce());
  const csp = reportCsp(cspSource, nonce);
  const parts = Object.fromEntries(csp.split('; ').map((p) => { const [k, ...v] = p.split(' '); return [k, v]; }));
  assert.deepEqual(parts['default-src'], ["'none'"]);
  assert.deepEqual(parts['script-src'], [`'nonce-${nonce}'`]);
  assert.deepEqual(parts['style-src'], [cspSource]);
  assert.deepEqual(parts['img-src'], [cspSource, 'data:']);
  assert.ok(!csp.includes('unsafe'));
});

void test('the page has one script (with the nonce and a src), one stylesheet, no inline script or style, nothing remote', () => {
  const html = reportHtml({ cspSource, nonce: 'abc123', scriptUri: `${cspSource}/ext/dist/webview.js`, styleUri: `${cspSource}/ext/media/report.css` });
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.equal(scripts.length, 1);
  assert.match(scripts[0][1], / nonce="abc123"/);
  assert.match(scripts[0][1], /src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/webview\.js"/);
  assert.equal(scripts[0][2].trim(), '', 'no inline script');
  assert.ok(!/<style|style="/.test(html), 'no inline style');
  assert.ok(html.includes('<link rel="stylesheet" href="https://file+.vscode-resource.vscode-cdn.net/ext/media/report.css">'));
  const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(urls.every((u) => u.startsWith(cspSource)), urls.join(' '));
  assert.match(html, /http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-abc123';/);
});
