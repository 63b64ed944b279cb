import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node, Parser } from 'web-tree-sitter';
import { grammarFor, ParserSet, parseSyntax, treeCopyPath, type GrammarName } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { languageForPath } from '../../../src/core/source/languageOf';
import type { SyntaxNode } from '../../../src/core/source/syntaxTree';
import { fsGrammarSource } from '../../../src/node/grammars';
import { FIXTURES } from '../../support/paths';

const parsers = new ParserSet(fsGrammarSource());

/** Every fixture source file a tree-sitter grammar reads. */
function fixtureSources(): { path: string; grammar: GrammarName }[] {
  const out: { path: string; grammar: GrammarName }[] = [];
  for (const e of readdirSync(FIXTURES, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const language = languageForPath(path);
    const grammar = language ? grammarFor(language, path) : undefined;
    if (grammar) out.push({ path, grammar });
  }
  return out;
}

/** Compares a copied node with tree-sitter's own, child by child, field by field. */
function sameTree(copy: SyntaxNode, real: Node, where: string): number {
  const at = `${where} @${real.startIndex} ${real.type}`;
  assert.equal(copy.type, real.type, at);
  assert.equal(copy.isNamed, real.isNamed, at);
  assert.equal(copy.startIndex, real.startIndex, at);
  assert.equal(copy.endIndex, real.endIndex, at);
  assert.equal(copy.isMissing, real.isMissing, at);
  assert.equal(copy.hasError, real.hasError, at);
  const kids = real.children;
  assert.equal(copy.children.length, kids.length, `${at}: child count`);
  assert.equal(copy.namedChildCount, real.namedChildCount, `${at}: named child count`);
  const fields = new Set<string>();
  let n = 1;
  kids.forEach((k, i) => {
    assert.equal(copy.children[i].field, real.fieldNameForChild(i), `${at}: field of child ${i}`);
    if (copy.children[i].field) fields.add(copy.children[i].field!);
    assert.equal(copy.children[i].parent, copy);
    n += sameTree(copy.children[i], k!, where);
  });
  for (const f of fields) {
    const mine = copy.childForFieldName(f), theirs = real.childForFieldName(f);
    assert.equal(`${mine?.startIndex}-${mine?.endIndex} ${mine?.type}`, `${theirs?.startIndex}-${theirs?.endIndex} ${theirs?.type}`, `${at}: field ${f}`);
  }
  return n;
}

const ALL_GRAMMARS: GrammarName[] = ['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'tsx', 'rust'];

void test('the runtime\'s memory and exports are reachable, so every grammar\'s trees are read from wasm memory', async () => {
  for (const g of ALL_GRAMMARS) assert.equal(treeCopyPath((await parsers.load(g)).language!), 'memory', g);
});

/** The three copies of one text agree node for node: type, named, positions, field, parent, missing, error. */
function sameCopies(parser: Parser, text: string, where: string): number {
  const fast = parseSyntax(parser, text);
  const copies = [parseSyntax(parser, text, 'exports'), parseSyntax(parser, text, 'cursor')];
  const facts = (n: SyntaxNode) => [n.typeId, n.type, n.isNamed, n.startIndex, n.endIndex, n.field, n.parent?.id, n.index, n.isMissing, n.hasError];
  for (const other of copies) {
    assert.equal(other.nodes.length, fast.nodes.length, `${where}: node count`);
    other.nodes.forEach((o, i) => assert.deepEqual(facts(fast.nodes[i]), facts(o), `${where} node ${i}`));
  }
  return fast.nodes.length;
}

/** The text cut into pieces and glued back wrongly, so the parse has ERROR and missing nodes. */
function broken(text: string, seed: number): string {
  let out = '';
  for (let i = 0; i < text.length; i += 97) out += text.slice(i, i + 97 - ((i / 97 + seed) % 7));
  return out + (seed % 2 ? '(' : '{ "é');
}

void test('the memory copy equals both cursor copies on every fixture file, whole and broken, in every grammar', async () => {
  const files = fixtureSources();
  let nodes = 0, withErrors = 0, missing = 0;
  const seen = new Set<GrammarName>();
  for (const { path, grammar } of files) {
    const parser = await parsers.load(grammar);
    seen.add(grammar);
    const text = readFileSync(path, 'utf8');
    nodes += sameCopies(parser, text, path);
    for (const seed of [1, 2]) {
      const b = broken(text, seed);
      nodes += sameCopies(parser, b, `${path} broken ${seed}`);
      const t = parseSyntax(parser, b);
      if (t.rootNode.hasError) withErrors++;
      missing += t.nodes.filter((n) => n.isMissing).length;
    }
  }
  for (const g of ALL_GRAMMARS) {
    const parser = await parsers.load(g);
    for (const text of ['', ' ', '\n\n', '"é😀" + ', '/* 😀 */ x', 'é']) nodes += sameCopies(parser, text, `${g} ${JSON.stringify(text)}`);
  }
  assert.deepEqual([...seen].sort(), [...ALL_GRAMMARS].sort());
  assert.ok(nodes > 100000, `nodes compared: ${nodes}`);
  assert.ok(withErrors > 50 && missing > 10, `broken texts with errors: ${withErrors}, missing nodes: ${missing}`);
});

void test('a copied tree equals tree-sitter\'s own on every fixture file, by both copy paths', async () => {
  const files = fixtureSources();
  assert.ok(files.length >= 40, `fixture sources found: ${files.length}`);
  let nodes = 0;
  for (const { path, grammar } of files) {
    const parser = await parsers.load(grammar);
    const text = readFileSync(path, 'utf8');
    const fast = parseSyntax(parser, text);
    const slow = parseSyntax(parser, text, 'cursor');
    const real = parser.parse(text)!;
    try {
      nodes += sameTree(fast.rootNode, real.rootNode, path);
      assert.equal(slow.nodes.length, fast.nodes.length, path);
      slow.nodes.forEach((s, i) => {
        const f = fast.nodes[i];
        assert.deepEqual([s.type, s.startIndex, s.endIndex, s.field, s.parent?.id], [f.type, f.startIndex, f.endIndex, f.field, f.parent?.id], `${path} node ${i}`);
      });
      // descendantForIndex by tree-sitter's rule, at every 37th offset and for a few spans
      for (let i = 0; i < text.length; i += 37) {
        for (const end of [i, Math.min(text.length, i + 5)]) {
          const mine = fast.rootNode.descendantForIndex(i, end), theirs = real.rootNode.descendantForIndex(i, end);
          assert.equal(`${mine.startIndex}-${mine.endIndex} ${mine.type}`, `${theirs?.startIndex}-${theirs?.endIndex} ${theirs?.type}`, `${path} descendantForIndex(${i}, ${end})`);
        }
      }
    } finally {
      real.delete();
    }
  }
  assert.ok(nodes > 10000, `nodes compared: ${nodes}`);
});

void test('syntax errors: ERROR and missing nodes are marked, and hasError rises to the root', async () => {
  const parser = await parsers.load('go');
  for (const text of ['package m\nfunc f() { x := db.Query("SELECT 1"\n}\n', 'package m\nfunc f( {\n', 'package m\nvar x = [\n']) {
    const copy = parseSyntax(parser, text);
    const real = parser.parse(text)!;
    try {
      assert.equal(copy.rootNode.hasError, true);
      sameTree(copy.rootNode, real.rootNode, JSON.stringify(text));
    } finally {
      real.delete();
    }
  }
});

void test('text, positions and siblings read from the source text', async () => {
  const parser = await parsers.load('python');
  const text = 'def f(a, b):\n    return a + "é" + b\n';
  const t = parseSyntax(parser, text);
  const bin = t.nodes.find((n) => n.type === 'binary_operator' && n.parent?.type === 'return_statement')!;
  assert.equal(bin.text, 'a + "é" + b');
  assert.deepEqual(bin.startPosition, { row: 1, column: 11 });
  assert.deepEqual(bin.endPosition, { row: 1, column: 22 });
  const params = t.nodes.find((n) => n.type === 'parameters')!;
  assert.equal(params.firstNamedChild!.text, 'a');
  assert.equal(params.lastNamedChild!.text, 'b');
  assert.equal(params.lastNamedChild!.previousNamedSibling!.text, 'a');
  assert.equal(params.firstNamedChild!.nextNamedSibling!.text, 'b');
  assert.equal(params.firstChild!.type, '(');
});
