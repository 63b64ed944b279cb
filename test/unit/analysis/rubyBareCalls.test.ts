import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';

// Ruby calls a method without parentheses (`next_id db`, `user = find_user id`) and, without arguments, by its bare
// name (`current_user`), which Ruby reads as a call unless a local variable of that name is in scope.
const parsers = new ParserSet(fsGrammarSource());

const APP = `class App
  def handler(db, rows)
    rows.each do |r|
      next_id db
      user = find_user r[:id]
      r[:items].each { |i| save_item i }
      audit
      settings
    end
  end

  def other(db, rows, audit)
    settings = {}
    rows.each do |settings_row|
      audit
      settings
    end
    [1, 2].each { |counter| counter }
  end

  def next_id(db)
    db.xquery('UPDATE id_gen SET id = LAST_INSERT_ID(id + 1)')
  end

  def find_user(id)
    db.xquery('SELECT id, name FROM users WHERE id = ?', id).first
  end

  def save_item(i)
    db.xquery('INSERT INTO saved (item_id) VALUES (?)', i)
  end

  def audit
    db.xquery('INSERT INTO audit (at) VALUES (NOW())')
  end

  def settings
    db.xquery('SELECT k, v FROM settings').to_a
  end

  def counter
    1
  end
end
`;

async function facts() {
  await parsers.loadFor(new Set(['ruby'] as const));
  const f = extractFacts('app.rb', APP, 'ruby', parsers, { routes: false });
  assert.deepEqual(f.errors, []);
  return f;
}

void test('ruby: a method named without parentheses, with or without arguments, is a call; a local variable or parameter of that name is not', async () => {
  const f = await facts();
  const calls = f.calls.filter((c) => c.receiver === undefined).map((c) => `${c.name}@${c.range.start.line + 1}/${c.loops.length}`);
  assert.deepEqual(calls, ['next_id@4/1', 'find_user@5/1', 'save_item@6/2', 'audit@7/1', 'settings@8/1']);
});

void test('ruby: a statement in a helper called without parentheses from a data loop is an N+1 with its call path', async () => {
  const found = detectNPlusOne([await facts()]).map((x) => `${x.data.innerSql} | ${x.data.path.map((s) => s.name).join(' > ')}`).sort();
  assert.deepEqual(found, [
    'INSERT INTO audit (at) VALUES (NOW()) | audit',
    'INSERT INTO saved (item_id) VALUES (?) | save_item',
    'SELECT id, name FROM users WHERE id = ? | find_user',
    'SELECT k, v FROM settings | settings',
    'UPDATE id_gen SET id = LAST_INSERT_ID(id + 1) | next_id',
  ]);
});
