/**
 * Statements made by a hash-based query builder (SQL::Maker, and the ORMs over it such as Teng), as Perl contest
 * apps build them: `$maker->insert('users', { name => $n, bio => $b })`, `->insert_multi('visits', [qw/user_id page/],
 * \@rows)`, `->select('items', [qw/id title/], { user_id => $id })`, `->update('users', { bio => $b }, { id => $id })`,
 * `->delete('sessions', { user_id => $id })`. The table and the keys of the hashes make the statement, as the builder
 * writes it for MySQL (names in backquotes, one `?` per value); a value that is a list or raw SQL (`[…]`, `{…}`,
 * `\'NOW()'`) and a hash held in a variable are parts not known here. insert_multi's rows are written as one tuple.
 */
import type { SqlPart } from '../../sqlText';
import type { Token } from './perlLexer';
import { isOp, isOpener, termStartBack } from './perlTerms';

const METHODS = new Set(['insert', 'insert_multi', 'bulk_insert', 'select', 'update', 'delete']);
/** A receiver that names a builder or an ORM handle (`$self->sql_maker`, `SQL::Maker->new(…)`, `$self->db`, `$teng`). */
const BUILDER_RECEIVER = /maker|builder|\bsql\b|sql::|teng|aniki|\bdb\b|->db$|\borm\b/i;

/** The argument groups of the list opened at `open` (top-level commas), each a list of token indexes. */
function groupsOf(tokens: readonly Token[], match: Int32Array, open: number, sepArrow: boolean): number[][] {
  const out: number[][] = [[]];
  const close = match[open];
  for (let i = open + 1; i < close; i++) {
    if (isOp(tokens[i], ',') || (sepArrow && isOp(tokens[i], '=>'))) { out.push([]); continue; }
    out[out.length - 1].push(i);
    if (isOpener(tokens[i]) && match[i] > i) i = match[i];
  }
  return out.filter((g) => g.length);
}

function nameOf(t: Token | undefined): string | undefined {
  if (!t) return undefined;
  if (t.kind === 'word') return t.text;
  if (t.kind === 'str' && t.text !== 'qw' && t.parts?.length === 1 && !t.parts[0].dynamic) return t.parts[0].text;
  return undefined;
}

/** Names listed by `[qw/a b/]`, `['a', 'b']` or `qw(a b)`; undefined when not all are written out. */
function namesOf(tokens: readonly Token[], match: Int32Array, g: number[], source: (t: Token) => string): string[] | undefined {
  let at = g[0];
  if (g.length === 1 && isOp(tokens[at], '[') && match[at] > at) {
    const inner = groupsOf(tokens, match, at, false);
    const out: string[] = [];
    for (const x of inner) {
      const words = x.length === 1 ? qwWords(tokens[x[0]], source) ?? (nameOf(tokens[x[0]]) !== undefined ? [nameOf(tokens[x[0]])!] : undefined) : undefined;
      if (!words) return undefined;
      out.push(...words);
    }
    return out.length ? out : undefined;
  }
  at = g.length === 1 ? g[0] : -1;
  return at >= 0 ? qwWords(tokens[at], source) : undefined;
}

/** The words of a `qw` list (`qw/a b/`, `qw(a b)`), from its source text. */
function qwWords(t: Token | undefined, source: (t: Token) => string): string[] | undefined {
  if (!t || t.text !== 'qw') return undefined;
  const m = /^qw\s*[^\w\s]([\s\S]*)[^\w\s]$/.exec(source(t));
  const w = m ? m[1].trim().split(/\s+/).filter(Boolean) : [];
  return w.length && w.every((x) => /^[\w.*]+$/.test(x)) ? w : undefined;
}

/** The pairs of a hash or pair list written out (`{ a => $x, b => 1 }`, `[a => $x]`): each key, and whether its value is one value. */
function pairsOf(tokens: readonly Token[], match: Int32Array, g: number[]): { key: string; single: boolean }[] | undefined {
  if (g.length !== 1 || !(isOp(tokens[g[0]], '{') || isOp(tokens[g[0]], '[')) || !(match[g[0]] > g[0])) return undefined;
  const items = groupsOf(tokens, match, g[0], true);
  if (items.length % 2) return undefined;
  const out: { key: string; single: boolean }[] = [];
  for (let k = 0; k < items.length; k += 2) {
    const key = items[k].length === 1 ? nameOf(tokens[items[k][0]]) : undefined;
    if (key === undefined) return undefined;
    const v = items[k + 1];
    const first = tokens[v[0]];
    const single = !(isOp(first, '[') || isOp(first, '{') || isOp(first, '\\'));
    out.push({ key, single });
  }
  return out;
}

const q = (name: string): string => `\`${name}\``;

/** `WHERE (\`a\` = ?) AND (\`b\` = ?)` from a where hash; a condition that is not one value is a part not known here. */
function whereParts(pairs: { key: string; single: boolean }[] | undefined, present: boolean): SqlPart[] {
  if (!present) return [];
  if (!pairs) return [{ text: ' WHERE ' }, { dynamic: true }];
  if (!pairs.length) return [];
  const out: SqlPart[] = [{ text: ' WHERE ' }];
  pairs.forEach((p, k) => {
    if (k) out.push({ text: ' AND ' });
    out.push(p.single ? { text: `(${q(p.key)} = ?)` } : { text: `(${q(p.key)} ` }, ...(p.single ? [] : [{ dynamic: true }, { text: ')' }] as SqlPart[]));
  });
  return out;
}

/**
 * The statement a builder call makes when the string at `i` is its first argument (the table), else undefined.
 * `receiverText(a, b)` gives the source of tokens a..b (the call's receiver), `source(t)` the text of one token.
 */
export function builderStatement(tokens: readonly Token[], match: Int32Array, i: number, receiverText: (a: number, b: number) => string,
  source: (t: Token) => string): SqlPart[] | undefined {
  const open = i - 1, method = tokens[i - 2];
  if (!isOp(tokens[open], '(') || method?.kind !== 'word' || !METHODS.has(method.text) || !isOp(tokens[i - 3], '->') || !(match[open] > open)) return undefined;
  const table = nameOf(tokens[i]);
  if (!table || !/^\w+(?:\.\w+)?$/.test(table)) return undefined;
  const s = termStartBack(tokens, match, i - 4);
  if (s < 0 || !BUILDER_RECEIVER.test(receiverText(s, i - 4))) return undefined;
  const args = groupsOf(tokens, match, open, false);
  if (args[0]?.[0] !== i || args[0].length !== 1) return undefined;
  const hashArg = (k: number) => (args[k] ? pairsOf(tokens, match, args[k]) : undefined);
  const T = table.split('.').map(q).join('.');
  switch (method.text) {
    case 'insert': {
      if (!args[1]) return undefined;
      const pairs = hashArg(1);
      if (!pairs) return [{ text: `INSERT INTO ${T} (` }, { dynamic: true }, { text: ') VALUES (' }, { dynamic: true }, { text: ')' }];
      return [{ text: `INSERT INTO ${T} (${pairs.map((p) => q(p.key)).join(', ')}) VALUES (${pairs.map(() => '?').join(', ')})` }];
    }
    case 'insert_multi': case 'bulk_insert': {
      if (!args[1]) return undefined;
      // (table, [columns], \@rows) or (table, [ {…}, … ]): the columns are listed, or the first row's keys.
      let cols = args[2] ? namesOf(tokens, match, args[1], source) : undefined;
      if (!cols && isOp(tokens[args[1][0]], '[') && args[1].length === 1) {
        const rows = groupsOf(tokens, match, args[1][0], false);
        const firstRow = rows[0] ? pairsOf(tokens, match, rows[0]) : undefined;
        cols = firstRow?.map((p) => p.key);
      }
      if (!cols) return [{ text: `INSERT INTO ${T} (` }, { dynamic: true }, { text: ') VALUES ' }, { dynamic: true }];
      return [{ text: `INSERT INTO ${T} (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})` }];
    }
    case 'select': {
      if (!args[1]) return undefined;
      const cols = namesOf(tokens, match, args[1], source);
      const head: SqlPart[] = cols ? [{ text: `SELECT ${cols.map((c) => (c === '*' ? c : q(c))).join(', ')} FROM ${T}` }]
        : [{ text: 'SELECT ' }, { dynamic: true }, { text: ` FROM ${T}` }];
      return [...head, ...whereParts(hashArg(2), !!args[2])];
    }
    case 'update': {
      const set = hashArg(1);
      if (!args[1]) return undefined;
      const head: SqlPart[] = set ? [{ text: `UPDATE ${T} SET ${set.map((p) => `${q(p.key)} = ?`).join(', ')}` }] : [{ text: `UPDATE ${T} SET ` }, { dynamic: true }];
      return [...head, ...whereParts(hashArg(2), !!args[2])];
    }
    case 'delete': {
      // `->delete('key')` alone is a cache's or a hash's, not a statement: the where hash is required.
      if (!args[1]) return undefined;
      return [{ text: `DELETE FROM ${T}` }, ...whereParts(hashArg(1), true)];
    }
  }
  return undefined;
}
