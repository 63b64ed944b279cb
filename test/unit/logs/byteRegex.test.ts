import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileByteRegex } from '../../../src/core/logs/byteRegex';
import { Grouper, literalPrefix } from '../../../src/core/logs/grouping';

const bytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');

// The -m expressions of contest apps, and shapes around them that the compiler must take or refuse.
const PATTERNS = [
  '^/posts/[0-9]+$', '^/image/[0-9]+\\.(jpg|png|gif)$', '^/@[a-z0-9_]+$', '^/items/[0-9]+\\.json$',
  '^/api/isu/[0-9a-f-]{36}$', '^/api/isu/[0-9a-f-]{36}/graph$', '^/api/app/rides/[0-9A-Z]{26}/evaluation$',
  '^/assets/[0-9a-f]+\\.(js|css)$', '^/api/user/\\w+/icon$', '^/x/\\d{2,4}/?$', '^/x/[^/]+$', '^/x/[^/]+/y$',
  '^/a/(?:b|bc)c$', '^/a/(b|)c$', '^/a/(?<n>b|c)?d$', '^/a', '^/a/[0-9]*', '^/a/.+$', '^/a/[a-z]?[0-9]+$',
  '^/p/[0-9]+?$', '^/q/[\\-a]{1,}x$', '^/r/[a\\]]+$', '^/s/[.]+$',
];
// Shapes whose repeated class can also start what follows (backtracking would matter): refused.
const REFUSED = ['^/a/[a-z]+[a-z0-9]$', '^/a/.*/b$', '^/a/[0-9]+(1|2)$', 'posts/[0-9]+$', '^/a/\\s+$', '^(a+)+$', '^/a/[]$'];

const PATHS = [
  '/', '/posts/1', '/posts/', '/posts/12a', '/image/5.jpg', '/image/5.jpeg', '/image/.png', '/@bob_1', '/@', '/@Bob',
  '/items/7.json', '/items/7.jsonx', '/api/isu/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', '/api/isu/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/graph',
  '/api/isu/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f/graph', '/api/app/rides/01ARZ3NDEKTSV4RRFFQ69G5FAV/evaluation',
  '/assets/ab12.js', '/assets/ab12.css', '/assets/.js', '/api/user/al_1/icon', '/x/12', '/x/12/', '/x/12345', '/x/a', '/x/a/y', '/x//y',
  '/a/bc', '/a/bcc', '/a/c', '/a/d', '/a/bd', '/a/cd', '/a/ed', '/a', '/a/', '/a/12', '/a/x', '/a/b1', '/a/1', '/p/5', '/p/', '/q/-a-x', '/q/x',
  '/r/a]a', '/s/...', '/s/', '/ab', '',
];

void test('an expression compiled to bytes answers as the regex engine does, on every path', () => {
  for (const p of PATTERNS) {
    const m = compileByteRegex(p, '');
    assert.ok(m, `${p} is compiled`);
    const re = new RegExp(p);
    for (const path of PATHS) {
      const b = bytes(`??${path}??`);
      assert.equal(m(b, 2, 2 + path.length), re.test(path), `${p} on ${path}`);
    }
  }
});

void test('expressions outside the compiled shape are left to the regex engine', () => {
  for (const p of REFUSED) assert.equal(compileByteRegex(p, ''), undefined, p);
  assert.equal(compileByteRegex('^/a$', 'i'), undefined);
});

void test('random paths: bytes and regex engine agree', () => {
  const alphabet = '/ab1-._9fZ';
  let seed = 7;
  const rnd = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (const p of PATTERNS) {
    const m = compileByteRegex(p, '')!;
    const re = new RegExp(p);
    for (let k = 0; k < 400; k++) {
      let path = p.slice(1, 1 + rnd(8)).replace(/[\\[\]^$(){}|?*+]/g, '');
      const len = rnd(12);
      for (let i = 0; i < len; i++) path += alphabet[rnd(alphabet.length)];
      const b = bytes(path);
      assert.equal(m(b, 0, b.length), re.test(path), `${p} on ${path}`);
    }
  }
});

void test('a matcher told the literal prefix its paths start with answers as the regex engine does on those paths', () => {
  let compared = 0;
  let matched = 0;
  const tails = [...PATHS.map((x) => x.slice(1)), '1', '12.jpg', 'bob', '7.json', 'ab12.css', 'x', '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/icon', 'al_1/icon', 'c/x', '12/'];
  for (const p of [...PATTERNS, '^/a{1}b/[0-9]+$', '^/ab?c/x$', '^/a\\.b/[0-9]+$', '^/api/isu/[0-9a-f-]{36}/icon$']) {
    const known = literalPrefix(p);
    const m = compileByteRegex(p, '', known)!;
    assert.ok(m, p);
    const re = new RegExp(p);
    for (const tail of tails) {
      const path = known + tail;
      const b = bytes(`??${path}??`);
      assert.equal(m(b, 2, 2 + path.length), re.test(path), `${p} on ${path}`);
      compared++;
      if (re.test(path)) matched++;
    }
    // The path that is exactly the prefix, and the prefix followed by what the expression wants.
    const exact = bytes(known);
    assert.equal(m(exact, 0, exact.length), re.test(known), `${p} on ${known}`);
  }
  assert.ok(compared > 1000 && matched > 40, `${compared} paths, ${matched} matching`);
});

void test('the grouper gives the same group from a path\'s bytes as from its string, first match winning', () => {
  const m = ['^/a/(b|)c$', '^/a/[^/]+$', '^/a/.*/b$', '^/posts/[0-9]+$', '^/posts/.+$'];
  for (const path of ['/a/c', '/a/bc', '/a/x', '/a/x/b', '/posts/1', '/posts/x', '/static/x.css', '/u/123', '/é/1', '/']) {
    const one = new Grouper({ matchingGroups: m });
    const two = new Grouper({ matchingGroups: m });
    const b = Buffer.from(path, 'utf8');
    const ascii = b.every((c) => c < 128);
    const req = { pathBytes: b, pathStart: 0, pathEnd: b.length, pathAscii: ascii, path };
    assert.deepEqual(two.groupBytes('GET', req), one.group('GET', path), path);
    assert.deepEqual(two.groupBytes('GET', req), one.group('GET', path), `${path} (cached)`);
  }
});
