/**
 * How each tree-sitter grammar writes its imports, read into ImportFacts (the name the file's code uses, the name in the
 * module, the module as written). The walker (extract.ts) meets these nodes in its one walk and asks the reader here;
 * calls to a helper imported by bare name are then resolved to the module it came from (nPlusOne.ts).
 */
import type { ImportFact } from '../../../model';
import type { SyntaxNode as Node } from '../../syntaxTree';
import { set } from './langSpec';

/** The import syntax of one grammar: the node types that import, and the calls that do (`require('./util')`, `include Util`). */
export interface ImportSyntax {
  nodes: ReadonlySet<string>;
  read(node: Node, out: ImportFact[]): void;
  /** Callee names of calls that import; `readCall` gets the call node. */
  calls?: ReadonlySet<string>;
  readCall?(node: Node, out: ImportFact[]): void;
}

const WHOLE = '*';

/** The text of a string literal node without its quotes. */
function unquoted(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  const t = node.text;
  return /^(['"`]).*\1$/s.test(t) ? t.slice(1, -1) : undefined;
}

// ---- Python: `import util as u`, `from .util import next_id as nid`, `from util import *` ----

export const PYTHON_IMPORTS: ImportSyntax = {
  nodes: set('import_statement', 'import_from_statement'),
  read(node, out) {
    if (node.type === 'import_statement') {
      for (const c of node.namedChildren) {
        if (c.type === 'aliased_import') out.push({ local: c.childForFieldName('alias')?.text ?? '', name: WHOLE, from: c.childForFieldName('name')?.text ?? '' });
        // `import os.path` binds `os`.
        else if (c.type === 'dotted_name') out.push({ local: c.firstNamedChild?.text ?? c.text, name: WHOLE, from: c.text });
      }
      return;
    }
    const from = node.childForFieldName('module_name')?.text;
    if (!from) return;
    for (const c of node.namedChildren) {
      if (c.field === 'module_name') continue;
      if (c.type === 'wildcard_import') out.push({ local: WHOLE, name: WHOLE, from });
      else if (c.type === 'aliased_import') out.push({ local: c.childForFieldName('alias')?.text ?? '', name: c.childForFieldName('name')?.text ?? '', from });
      else if (c.type === 'dotted_name') out.push({ local: c.text, name: c.text, from });
    }
  },
};

// ---- JavaScript / TypeScript: `import d, { a as b } from './m'`, `import * as m from './m'`, `const { a: b } = require('./m')` ----

export const JS_IMPORTS: ImportSyntax = {
  nodes: set('import_statement'),
  read(node, out) {
    const from = unquoted(node.childForFieldName('source'));
    if (from === undefined) return;
    const clause = node.namedChildren.find((c) => c.type === 'import_clause');
    for (const c of clause?.namedChildren ?? []) {
      if (c.type === 'identifier') out.push({ local: c.text, name: 'default', from });
      else if (c.type === 'namespace_import') out.push({ local: c.firstNamedChild?.text ?? '', name: WHOLE, from });
      else if (c.type === 'named_imports') {
        for (const s of c.namedChildren) {
          const name = s.childForFieldName('name')?.text;
          if (name) out.push({ local: s.childForFieldName('alias')?.text ?? name, name, from });
        }
      }
    }
  },
  calls: set('require'),
  readCall(node, out) {
    const from = unquoted(node.childForFieldName('arguments')?.firstNamedChild);
    const decl = node.parent;
    if (from === undefined || decl?.type !== 'variable_declarator' || decl.childForFieldName('value')?.id !== node.id) return;
    const target = decl.childForFieldName('name');
    if (target?.type === 'identifier') out.push({ local: target.text, name: WHOLE, from });
    else if (target?.type === 'object_pattern') {
      for (const p of target.namedChildren) {
        if (p.type === 'shorthand_property_identifier_pattern') out.push({ local: p.text, name: p.text, from });
        else if (p.type === 'pair_pattern') {
          const key = p.childForFieldName('key')?.text, value = p.childForFieldName('value');
          if (key && value?.type === 'identifier') out.push({ local: value.text, name: key, from });
        }
      }
    }
  },
};

// ---- Rust: `use crate::util::next_id;`, `use crate::util::{next_id as nid, other};`, `use crate::db::*;` ----

function rustUse(node: Node | null | undefined, prefix: string, out: ImportFact[]): void {
  if (!node) return;
  const join = (p: string, s: string) => (p ? `${p}::${s}` : s);
  switch (node.type) {
    case 'identifier':
    case 'scoped_identifier': {
      const path = node.type === 'scoped_identifier' ? node.childForFieldName('path')?.text : undefined;
      const name = node.type === 'scoped_identifier' ? node.childForFieldName('name')?.text ?? '' : node.text;
      out.push({ local: name, name, from: path ? join(prefix, path) : prefix });
      return;
    }
    case 'use_as_clause': {
      const path = node.childForFieldName('path');
      const alias = node.childForFieldName('alias')?.text;
      const before = out.length;
      rustUse(path, prefix, out);
      if (alias && out.length === before + 1) out[before].local = alias;
      return;
    }
    case 'scoped_use_list': {
      const p = node.childForFieldName('path')?.text;
      const inner = p ? join(prefix, p) : prefix;
      for (const c of node.childForFieldName('list')?.namedChildren ?? []) rustUse(c, inner, out);
      return;
    }
    case 'use_list':
      for (const c of node.namedChildren) rustUse(c, prefix, out);
      return;
    case 'self':
      // `use crate::util::{self, next_id};`: the module itself, reached as `util::f`.
      if (prefix) out.push({ local: lastSegment(prefix), name: WHOLE, from: prefix });
      return;
    case 'use_wildcard': {
      const p = node.firstNamedChild?.text;
      if (p) out.push({ local: WHOLE, name: WHOLE, from: join(prefix, p) });
      return;
    }
  }
}

export const RUST_IMPORTS: ImportSyntax = {
  nodes: set('use_declaration'),
  read(node, out) {
    rustUse(node.childForFieldName('argument'), '', out);
  },
};

function lastSegment(path: string): string {
  const i = path.lastIndexOf('::');
  return i < 0 ? path : path.slice(i + 2);
}

// ---- Go: `import u "example.com/app/util"` (a package is reached by its last path segment or its alias) ----

export const GO_IMPORTS: ImportSyntax = {
  nodes: set('import_spec'),
  read(node, out) {
    const from = unquoted(node.childForFieldName('path'));
    const alias = node.childForFieldName('name')?.text;
    if (from === undefined) return;
    if (alias === '.') out.push({ local: WHOLE, name: WHOLE, from });
    else if (alias && alias !== '_') out.push({ local: alias, name: WHOLE, from });
  },
};

// ---- PHP: `use function App\Util\next_id;`, `use App\Util\{a, b as c};`, `use App\Other as O;` ----

function phpClause(c: Node, prefix: string, out: ImportFact[]): void {
  const q = c.namedChildren.find((x) => x.field !== 'alias');
  const alias = c.childForFieldName('alias')?.text;
  if (!q) return;
  const prefixNode = q.type === 'qualified_name' ? q.childForFieldName('prefix') : null;
  const name = q.type === 'qualified_name' ? q.lastNamedChild?.text ?? '' : q.text;
  const from = [prefix, prefixNode?.text ?? ''].filter((x) => x).join('\\').replace(/^\\+|\\+$/g, '');
  out.push({ local: alias ?? name, name, from });
}

export const PHP_IMPORTS: ImportSyntax = {
  nodes: set('namespace_use_declaration'),
  read(node, out) {
    const group = node.childForFieldName('body');
    const prefix = group ? node.namedChildren.find((c) => c.type === 'namespace_name')?.text ?? '' : '';
    for (const c of (group ?? node).namedChildren) if (c.type === 'namespace_use_clause') phpClause(c, prefix, out);
  },
};

// ---- Ruby: `include Util` / `extend Util` (and Sinatra's `helpers Util`) mix a module's methods in ----

export const RUBY_IMPORTS: ImportSyntax = {
  nodes: set(),
  read() { /* Ruby imports by calls only */ },
  calls: set('include', 'extend', 'helpers'),
  readCall(node, out) {
    if (node.childForFieldName('receiver')) return;
    for (const a of node.childForFieldName('arguments')?.namedChildren ?? []) {
      if (a.type === 'constant' || a.type === 'scope_resolution') out.push({ local: WHOLE, name: WHOLE, from: a.text });
    }
  },
};
