/**
 * A loop's `breaks` (LoopInfo.breaks) is read from its whole body, however long: a `break` or `return` anywhere in it
 * counts, one inside a nested loop or function does not (it leaves that one). The bodies here are thousands of nodes
 * long, past any size a shortcut could read whole, with the only `break` at the start, far from the end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import type { Language, LoopInfo } from '../../../src/core/model';

const parsers = new ParserSet(fsGrammarSource());

/**
 * Per language: a loop around `body` with `stop` first in it; a statement of the body; a break; a nested loop with
 * `inner` first in it, then a statement; the indent of a nested loop's body.
 */
interface Shape { file: string; loop: (stop: string, body: string) => string; statement: string; stop: string; nested: (inner: string) => string; indent: string }

const SHAPES: [Language, Shape][] = [
  ['javascript', {
    file: 'a.js', loop: (stop, body) => `async function f(db, rows, done) {\n  for (const r of rows) {\n${stop}${body}  }\n}\n`,
    statement: '    total = total + r.amount * 2;\n', stop: '    if (done) break;\n',
    nested: (inner) => `    for (const t of r.tags) {\n${inner}      await db.query("SELECT id FROM tags WHERE id = ?", [t]);\n    }\n`, indent: '  ',
  }],
  ['python', {
    file: 'a.py', loop: (stop, body) => `def f(db, rows, done):\n    for r in rows:\n${stop}${body}`,
    statement: '        total = total + r.amount * 2\n', stop: '        if done:\n            break\n',
    nested: (inner) => `        for t in r.tags:\n${inner}            db.execute("SELECT id FROM tags WHERE id = %s", (t,))\n`, indent: '    ',
  }],
  ['go', {
    file: 'a.go', loop: (stop, body) => `package m\nfunc f(db *DB, rows []Row, done bool) {\n\tfor _, r := range rows {\n${stop}${body}\t}\n}\n`,
    statement: '\t\ttotal = total + r.Amount * 2\n', stop: '\t\tif done { break }\n',
    nested: (inner) => `\t\tfor _, t := range r.Tags {\n${inner}\t\t\tdb.Query("SELECT id FROM tags WHERE id = ?", t)\n\t\t}\n`, indent: '\t',
  }],
  ['ruby', {
    file: 'a.rb', loop: (stop, body) => `def f(db, rows, done)\n  rows.each do |r|\n${stop}${body}  end\nend\n`,
    statement: '    total = total + r.amount * 2\n', stop: '    break if done\n',
    nested: (inner) => `    r.tags.each do |t|\n${inner}      db.query("SELECT id FROM tags WHERE id = ?", t)\n    end\n`, indent: '  ',
  }],
  ['php', {
    file: 'a.php', loop: (stop, body) => `<?php\nfunction f($db, $rows, $done) {\n  foreach ($rows as $r) {\n${stop}${body}  }\n}\n`,
    statement: '    $total = $total + $r->amount * 2;\n', stop: '    if ($done) break;\n',
    nested: (inner) => `    foreach ($r->tags as $t) {\n${inner}      $db->query("SELECT id FROM tags WHERE id = ?", [$t]);\n    }\n`, indent: '  ',
  }],
  ['rust', {
    file: 'a.rs', loop: (stop, body) => `fn f(db: &Db, rows: &[Row], done: bool) {\n    for r in rows {\n${stop}${body}    }\n}\n`,
    statement: '        total = total + r.amount * 2;\n', stop: '        if done { break; }\n',
    nested: (inner) => `        for t in &r.tags {\n${inner}            db.query("SELECT id FROM tags WHERE id = ?", (t,));\n        }\n`, indent: '    ',
  }],
];

/** The loops of the statement whose text starts with `sql`. */
function loopsOf(language: Language, file: string, text: string, sql: string): LoopInfo[] {
  const facts = extractFacts(file, text, language, parsers, { routes: false });
  const site = facts.sites.find((s) => s.sql.startsWith(sql));
  assert.ok(site, `no statement ${sql} in ${file}`);
  return site.loops;
}

for (const [language, shape] of SHAPES) {
  void test(`${language}: a long loop body breaks by the break at its start; a break in a nested loop leaves only that one`, async () => {
    await parsers.loadFor([language]);
    const long = shape.statement.repeat(2000);
    const [outer, inner] = loopsOf(language, shape.file, shape.loop(shape.stop, long + shape.nested('')), 'SELECT id FROM tags');
    assert.equal(outer.breaks, true, 'the break at the start of the long body');
    assert.equal(inner.breaks, undefined, 'the nested loop has no break of its own');

    // The only breaks are in nested loops, a long one (stepped over whole) and a short one: the outer loop does not break.
    const deeper = (s: string) => s.replace(/^(?=.)/gm, shape.indent);
    const nestedLong = shape.nested(deeper(shape.stop) + deeper(shape.statement).repeat(40));
    const loops = loopsOf(language, shape.file, shape.loop('', long + nestedLong + shape.nested(deeper(shape.stop))), 'SELECT id FROM tags');
    assert.equal(loops[0].breaks, undefined, 'a break in a nested loop does not leave the outer one');
    assert.equal(loops[1].breaks, true, 'it leaves the nested loop');
  });
}
