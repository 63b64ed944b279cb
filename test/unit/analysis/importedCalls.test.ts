import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';

// Calls reached through the file's imports by bare name: two modules of one tree define a helper of the same name,
// one reads a row (the N+1 when called per row), the other writes a log line; the loop's file imports one of them.
const parsers = new ParserSet(fsGrammarSource());
const HOT = 'SELECT id, name FROM users WHERE id = ?';
const COLD = 'INSERT INTO audit (what) VALUES (?)';

/** The N+1 findings of a tree as `statement | call path`, the statement with `?` for any placeholder. */
async function findings(lang: Language, files: Record<string, string>): Promise<string[]> {
  await parsers.loadFor(new Set([lang]));
  const facts = Object.entries(files).map(([file, text]) => extractFacts(file, text, lang, parsers, { routes: false }));
  assert.deepEqual(facts.flatMap((f) => f.errors), []);
  return detectNPlusOne(facts).map((f) => `${f.data.innerSql.replace(/%s|\$\d|:\w+/g, '?')} | ${f.data.path.map((s) => s.name).join(' > ')}`).sort();
}

interface Case { lang: Language; what: string; files: Record<string, string>; expect: string[] }

const PY_UTIL = `def next_id(cur, uid):\n    cur.execute("${HOT.replace('?', '%s')}", (uid,))\n    return cur.fetchone()\n`;
const PY_OTHER = `def next_id(cur, what):\n    cur.execute("${COLD.replace('?', '%s')}", (what,))\n`;
const pyLoop = (head: string, callee: string) => `${head}\n\ndef handler(cur, rows):\n    for r in rows:\n        ${callee}(cur, r["id"])\n`;

const RB_UTIL = (mod: string, sql: string, self = 'self.') => `module ${mod}\n  def ${self}next_id(db, id)\n    db.xquery('${sql}', id).first\n  end\nend\n`;

const JS_UTIL = (sql: string) => `async function nextId(pool, id) {\n  const [rows] = await pool.query('${sql}', [id]);\n  return rows[0];\n}\nmodule.exports = { nextId };\n`;
const TS_UTIL = (sql: string) => `import type { Pool } from 'mysql2/promise';\nexport async function nextId(pool: Pool, id: number) {\n  const [rows] = await pool.query('${sql}', [id]);\n  return rows;\n}\n`;
const TS_DEFAULT = (sql: string) => `export default async function nextId(pool, id) {\n  const [rows] = await pool.query('${sql}', [id]);\n  return rows;\n}\n`;
const jsLoop = (head: string, callee: string) => `${head}\n\nasync function handler(pool, rows) {\n  for (const r of rows) {\n    await ${callee}(pool, r.id);\n  }\n}\n`;

const RS_UTIL = (sql: string) => `pub async fn next_id(pool: &MySqlPool, id: i64) -> sqlx::Result<()> {\n    sqlx::query("${sql}").bind(id).execute(pool).await?;\n    Ok(())\n}\n`;
const rsLoop = (head: string, callee: string) => `${head}\n\nasync fn handler(pool: &MySqlPool, rows: Vec<i64>) -> sqlx::Result<()> {\n    for r in rows {\n        ${callee}(pool, r).await?;\n    }\n    Ok(())\n}\n`;

const GO_UTIL = (pkg: string, sql: string) => `package ${pkg}\n\nfunc NextID(db *sqlx.DB, id int64) error {\n\t_, err := db.Exec("${sql}", id)\n\treturn err\n}\n`;

const PHP_UTIL = (ns: string, sql: string) => `<?php\nnamespace ${ns};\n\nfunction next_id($db, $id) {\n    $st = $db->prepare('${sql}');\n    $st->execute([$id]);\n    return $st->fetch();\n}\n`;

const PL_UTIL = (pkg: string, sql: string) => `package ${pkg};\nuse strict;\nuse Exporter 'import';\nour @EXPORT_OK = qw(next_id);\n\nsub next_id {\n    my ($db, $id) = @_;\n    return $db->select_row('${sql}', $id);\n}\n\n1;\n`;
const plLoop = (head: string, callee: string) => `use strict;\n${head}\n\nsub handler {\n    my ($db, $rows) = @_;\n    for my $r (@$rows) {\n        ${callee}($db, $r->{id});\n    }\n}\n`;

const CASES: Case[] = [
  { lang: 'python', what: 'from util import next_id', expect: [`${HOT} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'app/main.py': pyLoop('from util import next_id', 'next_id') } },
  { lang: 'python', what: 'from .util import next_id as nid', expect: [`${HOT} | nid`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'app/main.py': pyLoop('from .util import next_id as nid', 'nid') } },
  { lang: 'python', what: 'from app.other import next_id (the harmless one)', expect: [`${COLD} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'app/main.py': pyLoop('from app.other import next_id', 'next_id') } },
  { lang: 'python', what: 'from a module the tree does not hold (today\'s rules decide: the one definition of the name)', expect: [`${HOT} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/main.py': pyLoop('from vendored.helpers import next_id', 'next_id') } },
  { lang: 'python', what: 'import util; util.next_id()', expect: [`${HOT} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'app/main.py': pyLoop('import util', 'util.next_id') } },
  { lang: 'python', what: 'import util as u; u.next_id()', expect: [`${HOT} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'app/main.py': pyLoop('import util as u', 'u.next_id') } },
  { lang: 'python', what: 'from app import util; util.next_id()', expect: [`${HOT} | next_id`],
    files: { 'app/util.py': PY_UTIL, 'app/other.py': PY_OTHER, 'main.py': pyLoop('from app import util', 'util.next_id') } },
  { lang: 'ruby', what: "require_relative 'util'; Util.next_id", expect: [`${HOT} | next_id`],
    files: { 'util.rb': RB_UTIL('Util', HOT), 'other.rb': RB_UTIL('Other', COLD),
      'app.rb': "require_relative 'util'\n\nclass App\n  def handler(db, rows)\n    rows.each do |r|\n      Util.next_id(db, r[:id])\n    end\n  end\nend\n" } },
  { lang: 'ruby', what: 'include Util (a mixin); next_id(db, id)', expect: [`${HOT} | next_id`],
    files: { 'util.rb': RB_UTIL('Util', HOT, ''), 'other.rb': RB_UTIL('Other', COLD, ''),
      'app.rb': "require_relative 'util'\n\nclass App\n  include Util\n\n  def handler(db, rows)\n    rows.each do |r|\n      next_id(db, r[:id])\n    end\n  end\nend\n" } },
  { lang: 'javascript', what: "const { nextId } = require('./util')", expect: [`${HOT} | nextId`],
    files: { 'util.js': JS_UTIL(HOT), 'other.js': JS_UTIL(COLD), 'app.js': jsLoop("const { nextId } = require('./util');", 'nextId') } },
  { lang: 'javascript', what: "const { nextId: nid } = require('./util')", expect: [`${HOT} | nid`],
    files: { 'util.js': JS_UTIL(HOT), 'other.js': JS_UTIL(COLD), 'app.js': jsLoop("const { nextId: nid } = require('./util');", 'nid') } },
  { lang: 'javascript', what: "const nextId = require('./util') of a module that exports one function", expect: [`${HOT} | nextId`],
    files: { 'util.js': JS_UTIL(HOT).replace('module.exports = { nextId }', 'module.exports = nextId'), 'other.js': JS_UTIL(COLD),
      'app.js': jsLoop("const nextId = require('./util');", 'nextId') } },
  { lang: 'typescript', what: "import { nextId } from './util'", expect: [`${HOT} | nextId`],
    files: { 'src/util.ts': TS_UTIL(HOT), 'src/other.ts': TS_UTIL(COLD), 'src/app.ts': jsLoop("import { nextId } from './util';", 'nextId') } },
  { lang: 'typescript', what: "import { nextId as nid } from './other' (the harmless one)", expect: [`${COLD} | nid`],
    files: { 'src/util.ts': TS_UTIL(HOT), 'src/other.ts': TS_UTIL(COLD), 'src/app.ts': jsLoop("import { nextId as nid } from './other';", 'nid') } },
  { lang: 'typescript', what: "import nextId from './util' (a default export)", expect: [`${HOT} | nextId`],
    files: { 'src/util.ts': TS_DEFAULT(HOT), 'src/other.ts': TS_DEFAULT(COLD), 'src/app.ts': jsLoop("import nextId from './util';", 'nextId') } },
  { lang: 'typescript', what: "import * as util from './util'; util.nextId()", expect: [`${HOT} | nextId`],
    files: { 'src/util.ts': TS_UTIL(HOT), 'src/other.ts': TS_UTIL(COLD), 'src/app.ts': jsLoop("import * as u from './util';", 'u.nextId') } },
  { lang: 'rust', what: 'use crate::util::next_id;', expect: [`${HOT} | next_id`],
    files: { 'src/util.rs': RS_UTIL(HOT), 'src/other.rs': RS_UTIL(COLD), 'src/main.rs': rsLoop('mod util;\nmod other;\nuse crate::util::next_id;', 'next_id') } },
  { lang: 'rust', what: 'use crate::util::{next_id, other};', expect: [`${HOT} | next_id`],
    files: { 'src/util.rs': RS_UTIL(HOT), 'src/other.rs': RS_UTIL(COLD), 'src/main.rs': rsLoop('mod util;\nmod other;\nuse crate::util::{next_id, Thing};', 'next_id') } },
  { lang: 'rust', what: 'use crate::other::next_id as nid; (the harmless one)', expect: [`${COLD} | nid`],
    files: { 'src/util.rs': RS_UTIL(HOT), 'src/other.rs': RS_UTIL(COLD), 'src/main.rs': rsLoop('mod util;\nmod other;\nuse crate::other::next_id as nid;', 'nid') } },
  { lang: 'rust', what: 'util::next_id(…)', expect: [`${HOT} | next_id`],
    files: { 'src/util.rs': RS_UTIL(HOT), 'src/other.rs': RS_UTIL(COLD), 'src/main.rs': rsLoop('mod util;\nmod other;', 'util::next_id') } },
  { lang: 'go', what: 'util.NextID(db, id) with two packages defining NextID', expect: [`${HOT} | NextID`],
    files: { 'util/util.go': GO_UTIL('util', HOT), 'other/other.go': GO_UTIL('other', COLD),
      'main.go': 'package main\n\nimport (\n\t"example.com/app/other"\n\t"example.com/app/util"\n)\n\nfunc handler(db *sqlx.DB, ids []int64) {\n\tfor _, id := range ids {\n\t\tutil.NextID(db, id)\n\t}\n\tother.NextID(db, 0)\n}\n' } },
  { lang: 'go', what: 'an aliased import: u.NextID(db, id)', expect: [`${HOT} | NextID`],
    files: { 'util/util.go': GO_UTIL('util', HOT), 'other/other.go': GO_UTIL('other', COLD),
      'main.go': 'package main\n\nimport (\n\tu "example.com/app/util"\n)\n\nfunc handler(db *sqlx.DB, ids []int64) {\n\tfor _, id := range ids {\n\t\tu.NextID(db, id)\n\t}\n}\n' } },
  { lang: 'php', what: 'use function App\\Util\\next_id;', expect: [`${HOT} | next_id`],
    files: { 'src/Util.php': PHP_UTIL('App\\Util', HOT), 'src/Other.php': PHP_UTIL('App\\Other', COLD),
      'index.php': "<?php\nuse function App\\Util\\next_id;\n\nfunction handler($db, $rows) {\n    foreach ($rows as $r) {\n        next_id($db, $r['id']);\n    }\n}\n" } },
  { lang: 'php', what: 'a namespaced call App\\Util\\next_id()', expect: [`${HOT} | next_id`],
    files: { 'src/Util.php': PHP_UTIL('App\\Util', HOT), 'src/Other.php': PHP_UTIL('App\\Other', COLD),
      'index.php': "<?php\n\nfunction handler($db, $rows) {\n    foreach ($rows as $r) {\n        \\App\\Util\\next_id($db, $r['id']);\n    }\n}\n" } },
  { lang: 'php', what: 'a static method Util::nextId()', expect: [`${HOT} | nextId`],
    files: { 'src/Util.php': `<?php\nnamespace App;\n\nclass Util {\n    public static function nextId($db, $id) {\n        $st = $db->prepare('${HOT}');\n        $st->execute([$id]);\n        return $st->fetch();\n    }\n}\n`,
      'src/Other.php': `<?php\nnamespace App;\n\nclass Other {\n    public static function nextId($db, $id) {\n        $db->prepare('${COLD}')->execute([$id]);\n    }\n}\n`,
      'index.php': "<?php\nuse App\\Util;\n\nfunction handler($db, $rows) {\n    foreach ($rows as $r) {\n        Util::nextId($db, $r['id']);\n    }\n}\n" } },
  { lang: 'php', what: 'a static method through a class alias: use App\\Util as U; U::nextId()', expect: [`${HOT} | nextId`],
    files: { 'src/Util.php': `<?php\nnamespace App;\n\nclass Util {\n    public static function nextId($db, $id) {\n        $st = $db->prepare('${HOT}');\n        $st->execute([$id]);\n        return $st->fetch();\n    }\n}\n`,
      'src/Other.php': `<?php\nnamespace App;\n\nclass Other {\n    public static function nextId($db, $id) {\n        $db->prepare('${COLD}')->execute([$id]);\n    }\n}\n`,
      'index.php': "<?php\nuse App\\Util as U;\n\nfunction handler($db, $rows) {\n    foreach ($rows as $r) {\n        U::nextId($db, $r['id']);\n    }\n}\n" } },
  { lang: 'perl', what: 'use My::Util qw(next_id); next_id(…)', expect: [`${HOT} | next_id`],
    files: { 'lib/My/Util.pm': PL_UTIL('My::Util', HOT), 'lib/My/Other.pm': PL_UTIL('My::Other', COLD), 'app.pl': plLoop('use My::Util qw(next_id);\nuse My::Other ();', 'next_id') } },
  { lang: 'perl', what: 'My::Util::next_id(…)', expect: [`${HOT} | next_id`],
    files: { 'lib/My/Util.pm': PL_UTIL('My::Util', HOT), 'lib/My/Other.pm': PL_UTIL('My::Other', COLD), 'app.pl': plLoop('use My::Util ();\nuse My::Other ();', 'My::Util::next_id') } },
];

for (const c of CASES) {
  void test(`${c.lang}: ${c.what} reaches the right helper`, async () => {
    assert.deepEqual(await findings(c.lang, c.files), c.expect);
  });
}
