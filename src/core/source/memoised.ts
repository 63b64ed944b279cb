/**
 * Request memoisation over a syntax tree: a lookup whose result is kept and handed back on the next
 * call (`@me ||= db.query(…)`, `if st.me != nil { return st.me } … st.me = &u`, a PHP `static`),
 * which therefore does not run once per iteration of a loop that calls it.
 */
import type { GrammarTables, SyntaxNode as Node } from './syntaxTree';

const OR_ASSIGN = new Set(['||=', '??=', '//=']);
const OP_ASSIGN = new Set(['augmented_assignment', 'operator_assignment', 'augmented_assignment_expression', 'compound_assignment_expr', 'assignment_expression']);
/** Places that outlive one call: members, attributes, instance variables, index slots. */
const KEPT = new Set(['selector_expression', 'attribute', 'member_expression', 'member_access_expression', 'field_expression', 'instance_variable',
  'class_variable', 'subscript', 'subscript_expression', 'element_reference', 'index_expression', 'scoped_property_access_expression']);
const IF = /^if(?:_statement|_expression|_modifier)?$|^unless(?:_modifier)?$/;
const RETURN = /^return(?:_statement|_expression)?$/;

/**
 * A store of a kept place (`key`, the last name of `cache[id]` or `st.me`), a guard that returns early, and a copy of a
 * kept place into plain names (`u, ok := cache[id]`, `u = CACHE.get(id)`) that a guard may test instead of the place.
 */
interface Store { at: number; key: string; holder?: string }
interface Copy { at: number; store: Store; names: string[] }
interface Memo { stores: Store[]; guards: { at: number; condAt: number; cond: string }[]; copies: Copy[] }

/** Per function node (by id) of one tree: where kept values are stored and where a guard returns early. */
export class MemoIndex {
  private readonly byFn = new Map<number, Memo>();

  constructor(private readonly nodes: readonly Node[], private readonly assignments: ReadonlySet<string>) {}

  /** True when the statement run by `at` (a call) inside `fn` is memoised. */
  memoised(at: Node, fn: Node): boolean {
    for (let a = at.parent; a && a !== fn; a = a.parent) {
      if (OP_ASSIGN.has(a.type) && OR_ASSIGN.has(a.childForFieldName('operator')?.type ?? a.children[1]?.type ?? '')) return true;
    }
    if (!fn.parent) return false;
    const m = this.index(fn);
    if (!m.guards.length || !m.stores.length) return false;
    for (const s of m.stores) {
      if (s.at < at.endIndex) continue;
      const word = wordPattern(s.key);
      const copies = m.copies.filter((c) => c.store === s && c.at < at.startIndex);
      // why: a guard tests the kept place itself (its key, and its holder where it has one: `if id in cache`, not a bare
      // `if id == 0`), or a name the place was copied into before it (`u, ok := cache[id]; if ok`).
      const tests = (g: Memo['guards'][number]) => (word.test(g.cond) && (!s.holder || g.cond.includes(s.holder)))
        || copies.some((c) => c.at < g.condAt && c.names.some((n) => wordPattern(n).test(g.cond)));
      if (m.guards.some((g) => g.at < at.startIndex && tests(g))) return true;
    }
    return false;
  }

  private index(fn: Node): Memo {
    let m = this.byFn.get(fn.id);
    if (m) return m;
    m = { stores: [], guards: [], copies: [] };
    // why: one pass over the function's nodes per function holding a statement; a table by type id skips most. The
    // stores (and `static` declarations) are read only once a guard is found: without one, none of them matters.
    const roles = memoRoles(this.assignments, this.nodes[0].tree.tables);
    const pending: Node[] = [];
    for (let i = fn.id + 1; i < this.nodes.length && this.nodes[i].startIndex < fn.endIndex; i++) {
      const n = this.nodes[i];
      const role = roles[n.typeId];
      if (!role) continue;
      if (role === 2) {
        if (!IF.test(n.type)) continue;
        const cond = n.childForFieldName('condition');
        if (cond && hasReturn(n, cond)) m.guards.push({ at: n.startIndex, condAt: cond.startIndex, cond: cond.text });
      } else pending.push(n);
    }
    if (m.guards.length) this.stores(pending, roles, m);
    this.byFn.set(fn.id, m);
    return m;
  }

  /** The stores among `nodes` (assignments and `static` declarations, in order) into `m`. */
  private stores(nodes: readonly Node[], roles: Uint8Array, m: Memo): void {
    const statics = new Set<string>();
    const plain: Node[] = [];
    for (const n of nodes) {
      if (roles[n.typeId] === 3) {
        const name = n.childForFieldName('name')?.text.replace(/^\$/, '');
        if (name) statics.add(name);
        continue;
      }
      let target = n.childForFieldName('left') ?? n.firstNamedChild;
      if (target?.type === 'expression_list' && target.namedChildCount === 1) target = target.firstNamedChild;
      if (!target) continue;
      if (KEPT.has(target.type)) {
        const key = /(\w+)['"]?\s*[\]}]?\s*$/.exec(target.text)?.[1];
        if (key) m.stores.push({ at: n.startIndex, key, holder: target.namedChildCount ? target.firstNamedChild!.text : undefined });
        continue;
      }
      plain.push(n);
      if (statics.size) {
        // why: only a function that declares a `static` can store into a plain name; the others need no copy of each target.
        const name = target.text.replace(/^[$@]+/, '');
        if (statics.has(name)) m.stores.push({ at: n.startIndex, key: name });
      }
    }
    if (m.stores.some((s) => s.holder)) this.copies(plain, m);
  }

  /** The assignments among `nodes` that copy a stored place (its holder and its key) into plain names, into `m`. */
  private copies(nodes: readonly Node[], m: Memo): void {
    for (const n of nodes) {
      const value = n.childForFieldName('right') ?? n.childForFieldName('value');
      const names = (n.childForFieldName('left') ?? n.childForFieldName('name'))?.text.match(/[A-Za-z_]\w*/g);
      if (!value || !names) continue;
      const text = value.text;
      for (const s of m.stores) {
        if (s.holder && s.at > n.startIndex && text.includes(s.holder) && wordPattern(s.key).test(text)) m.copies.push({ at: n.startIndex, store: s, names });
      }
    }
  }
}

const words = new Map<string, RegExp>();

/** The pattern of `key` as a whole name (`me`, `$me`), compiled once per name. */
function wordPattern(key: string): RegExp {
  let re = words.get(key);
  if (!re) {
    if (words.size > 4096) words.clear();
    words.set(key, re = new RegExp(`(?:^|[^\\w$])\\$?${key}(?![\\w$])`));
  }
  return re;
}

const memoRoleTables = new WeakMap<GrammarTables, Uint8Array>();

/** Per grammar, by type id: 1 assignment, 2 `if`, 3 PHP `static` declaration. */
function memoRoles(assignments: ReadonlySet<string>, tables: GrammarTables): Uint8Array {
  let r = memoRoleTables.get(tables);
  if (!r) {
    r = new Uint8Array(tables.types.length);
    tables.types.forEach((t, id) => {
      if (!tables.named[id]) return;
      if (assignments.has(t) || OP_ASSIGN.has(t)) r![id] = 1;
      else if (IF.test(t)) r![id] = 2;
      else if (t === 'static_variable_declaration') r![id] = 3;
    });
    memoRoleTables.set(tables, r);
  }
  return r;
}

/** The `if` returns straight away when its condition holds (`if x { return x }`, `return x if x`). */
function hasReturn(ifNode: Node, cond: Node): boolean {
  for (const c of ifNode.namedChildren) {
    if (c === cond || /else|elif|elsif/.test(c.type)) continue;
    if (RETURN.test(c.type)) return true;
    const first = c.type === 'expression_statement' ? c.firstNamedChild : c;
    if (first && RETURN.test(first.type)) return true;
    for (const s of c.namedChildren) {
      if (RETURN.test(s.type) || (s.type === 'expression_statement' && s.firstNamedChild && RETURN.test(s.firstNamedChild.type))) return true;
      if (s.type === 'statement_list') for (const x of s.namedChildren) if (RETURN.test(x.type)) return true;
    }
  }
  return false;
}
