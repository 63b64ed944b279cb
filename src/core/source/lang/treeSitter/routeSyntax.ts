/**
 * The per-language part of route discovery: how a call, a plain string, a function literal, its
 * parameters and an assignment look in each tree-sitter grammar. The walker (routeWalker.ts) is the
 * same for every language and only asks these questions.
 */
import type { SyntaxNode as Node } from '../../syntaxTree';
import type { GrammarName } from './treeSitter';

/** A call as route discovery needs it. */
export interface RCall {
  node: Node;
  /** Last segment of the callee (`GET`, `HandleFunc`, `get`, `include_router`, `Hono` for `new Hono()`). */
  name: string;
  /** What the method is called on (`e`, `e.Group("/api")`, `Route`, `web`), when anything. */
  recv: Node | null;
  /** Positional arguments, unwrapped (PHP `argument`, Ruby hash pairs left out). */
  args: Node[];
  /** Keyword arguments (Python `prefix=…`, Ruby `to: …`). */
  kwargs: Map<string, Node>;
  /** Ruby `do … end` / `{ … }` block. */
  block: Node | null;
}

export interface RouteSyntax {
  /** Node types that are calls. */
  calls: ReadonlySet<string>;
  call(node: Node): RCall | undefined;
  /** The value of a string literal without interpolation. */
  str(node: Node | null | undefined): string | undefined;
  /** Function literals and blocks that can be handlers or group bodies. */
  isFunc(node: Node): boolean;
  /** Parameter names of a function literal or definition, in order (`$` dropped in PHP). */
  params(fn: Node): string[];
  /** The name a reference is written with (`h`, `s.getUser`, `views.index`), for handlers and routers. */
  ref(node: Node): string | undefined;
  /** Variable a value is assigned to (`g := …`, `api = …`, `const r = …`, `$app = …`, `let app = …`). */
  assignedTo(node: Node): string | undefined;
  /** The node types of named function definitions. */
  funcDefs: ReadonlySet<string>;
  /** Object literal entries (JS `{ method, url }`, PHP `['prefix' => …]`) by key. */
  entries(node: Node): Map<string, Node> | undefined;
  /** Items of a list literal (`["GET", "POST"]`, `[]string{"GET"}`). */
  items(node: Node): Node[] | undefined;
}

const named = (n: Node | null | undefined): Node[] => (n ? n.namedChildren.filter((c): c is Node => !!c && !/comment/.test(c.type)) : []);

function unquoteGo(node: Node): string | undefined {
  if (node.type === 'raw_string_literal') return node.text.slice(1, -1);
  if (node.type !== 'interpreted_string_literal') return undefined;
  return node.text.slice(1, -1).replace(/\\(["\\/])/g, '$1');
}

/** Text of the `string_content`-like children of a string node; undefined when it interpolates. */
function contentOf(node: Node, content: ReadonlySet<string>, escapes: ReadonlySet<string>, skip: ReadonlySet<string>): string | undefined {
  let out = '';
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (content.has(c.type)) out += c.text;
    else if (escapes.has(c.type)) out += c.text.length === 2 ? c.text[1] : c.text;
    else if (!skip.has(c.type)) return undefined;
  }
  return out;
}

function varName(text: string): string {
  return text.replace(/^\$/, '').replace(/\s+/g, '');
}

const S = (...xs: string[]): ReadonlySet<string> => new Set(xs);

const go: RouteSyntax = {
  calls: S('call_expression'),
  call(node) {
    const fn = node.childForFieldName('function');
    if (!fn) return undefined;
    const args = named(node.childForFieldName('arguments'));
    if (fn.type === 'selector_expression') return { node, name: fn.childForFieldName('field')?.text ?? '', recv: fn.childForFieldName('operand'), args, kwargs: new Map(), block: null };
    if (fn.type === 'identifier') return { node, name: fn.text, recv: null, args, kwargs: new Map(), block: null };
    return undefined;
  },
  str: (n) => (n ? unquoteGo(n) : undefined),
  isFunc: (n) => n.type === 'func_literal',
  params(fn) {
    const out: string[] = [];
    for (const p of named(fn.childForFieldName('parameters'))) {
      const names = p.childrenForFieldName('name').filter((x): x is Node => !!x);
      if (names.length) for (const x of names) out.push(x.text); else out.push('_');
    }
    return out;
  },
  ref(n) {
    if (n.type === 'identifier' || n.type === 'selector_expression') return n.text.replace(/\s+/g, '');
    // http.HandlerFunc(h), http.TimeoutHandler(h, …): the handler is the first argument
    if (n.type === 'call_expression') {
      const c = go.call(n);
      if (c && /^(?:HandlerFunc|StripPrefix|TimeoutHandler)$/.test(c.name) && c.args.length) return go.ref(c.args[c.name === 'StripPrefix' ? 1 : 0] ?? c.args[0]);
    }
    return undefined;
  },
  assignedTo(n) {
    const list = n.parent;
    const decl = list?.type === 'expression_list' ? list.parent : null;
    if (!decl || !['short_var_declaration', 'assignment_statement'].includes(decl.type)) {
      if (list?.type === 'var_spec') return list.childForFieldName('name')?.text;
      return undefined;
    }
    const left = named(decl.childForFieldName('left'));
    return left.length === 1 ? left[0].text : undefined;
  },
  funcDefs: S('function_declaration', 'method_declaration'),
  entries: () => undefined,
  items(n) {
    if (n.type !== 'composite_literal') return undefined;
    return named(n.childForFieldName('body')).map((e) => (e.type === 'literal_element' ? e.firstNamedChild ?? e : e));
  },
};

const python: RouteSyntax = {
  calls: S('call'),
  call(node) {
    const fn = node.childForFieldName('function');
    if (!fn) return undefined;
    const args: Node[] = [];
    const kwargs = new Map<string, Node>();
    for (const a of named(node.childForFieldName('arguments'))) {
      if (a.type === 'keyword_argument') {
        const k = a.childForFieldName('name'), v = a.childForFieldName('value');
        if (k && v) kwargs.set(k.text, v);
      } else args.push(a);
    }
    if (fn.type === 'attribute') return { node, name: fn.childForFieldName('attribute')?.text ?? '', recv: fn.childForFieldName('object'), args, kwargs, block: null };
    if (fn.type === 'identifier') return { node, name: fn.text, recv: null, args, kwargs, block: null };
    return undefined;
  },
  str(n) {
    if (!n || n.type !== 'string') return undefined;
    const start = n.firstChild?.text ?? '';
    if (/f/i.test(start)) return undefined;
    return contentOf(n, S('string_content'), S('escape_sequence'), S('string_start', 'string_end'));
  },
  isFunc: (n) => n.type === 'lambda',
  params(fn) {
    return named(fn.childForFieldName('parameters')).map((p) => (p.type === 'identifier' ? p.text : (p.childForFieldName('name') ?? p.firstNamedChild)?.text ?? '_'));
  },
  ref: (n) => (n.type === 'identifier' || n.type === 'attribute' ? n.text.replace(/\s+/g, '') : undefined),
  assignedTo(n) {
    const p = n.parent;
    if (p?.type !== 'assignment' || p.childForFieldName('right')?.id !== n.id) return undefined;
    const left = p.childForFieldName('left');
    return left && (left.type === 'identifier' || left.type === 'attribute') ? left.text : undefined;
  },
  funcDefs: S('function_definition'),
  entries: () => undefined,
  items: (n) => (n.type === 'list' || n.type === 'tuple' ? named(n) : undefined),
};

function jsStr(n: Node | null | undefined): string | undefined {
  if (!n) return undefined;
  if (n.type === 'string') return contentOf(n, S('string_fragment'), S('escape_sequence'), S());
  if (n.type === 'template_string') return contentOf(n, S('string_fragment'), S('escape_sequence'), S());
  return undefined;
}

const javascript: RouteSyntax = {
  calls: S('call_expression', 'new_expression'),
  call(node) {
    if (node.type === 'new_expression') {
      const ctor = node.childForFieldName('constructor');
      if (!ctor) return undefined;
      const name = ctor.text.replace(/^.*\./, '');
      return { node, name, recv: null, args: named(node.childForFieldName('arguments')), kwargs: new Map(), block: null };
    }
    const fn = node.childForFieldName('function');
    if (!fn) return undefined;
    const args = named(node.childForFieldName('arguments'));
    if (fn.type === 'member_expression') return { node, name: fn.childForFieldName('property')?.text ?? '', recv: fn.childForFieldName('object'), args, kwargs: new Map(), block: null };
    if (fn.type === 'identifier') return { node, name: fn.text, recv: null, args, kwargs: new Map(), block: null };
    return undefined;
  },
  str: jsStr,
  isFunc: (n) => ['arrow_function', 'function_expression', 'function'].includes(n.type),
  params(fn) {
    const ps = fn.childForFieldName('parameters') ?? fn.childForFieldName('parameter');
    if (!ps) return [];
    if (ps.type === 'identifier') return [ps.text];
    return named(ps).map((p) => (p.type === 'identifier' ? p.text : (p.childForFieldName('pattern') ?? p.childForFieldName('left') ?? p.firstNamedChild)?.text ?? '_'));
  },
  ref: (n) => (n.type === 'identifier' || n.type === 'member_expression' ? n.text.replace(/\s+/g, '') : undefined),
  assignedTo(n) {
    let v: Node = n;
    if (v.parent?.type === 'await_expression') v = v.parent;
    const p = v.parent;
    if (p?.type === 'variable_declarator' && p.childForFieldName('value')?.id === v.id) return p.childForFieldName('name')?.text;
    if (p?.type === 'assignment_expression' && p.childForFieldName('right')?.id === v.id) return p.childForFieldName('left')?.text.replace(/\s+/g, '');
    return undefined;
  },
  funcDefs: S('function_declaration', 'method_definition', 'generator_function_declaration'),
  entries(n) {
    if (n.type !== 'object') return undefined;
    const m = new Map<string, Node>();
    for (const p of named(n)) {
      if (p.type === 'pair') {
        const k = p.childForFieldName('key'), v = p.childForFieldName('value');
        if (k && v) m.set(jsStr(k) ?? k.text, v);
      } else if (p.type === 'shorthand_property_identifier') m.set(p.text, p);
    }
    return m;
  },
  items: (n) => (n.type === 'array' ? named(n) : undefined),
};

function phpArg(a: Node): Node {
  return a.type === 'argument' ? (a.firstNamedChild ?? a) : a;
}

const php: RouteSyntax = {
  calls: S('member_call_expression', 'nullsafe_member_call_expression', 'scoped_call_expression', 'function_call_expression', 'object_creation_expression'),
  call(node) {
    const argsNode = node.childForFieldName('arguments') ?? named(node).find((c) => c.type === 'arguments');
    const all = named(argsNode);
    const args: Node[] = [];
    const kwargs = new Map<string, Node>();
    for (const a of all) {
      const nameNode = a.type === 'argument' ? a.childForFieldName('name') : null;
      if (nameNode) kwargs.set(nameNode.text, phpArg(a)); else args.push(phpArg(a));
    }
    switch (node.type) {
      case 'member_call_expression':
      case 'nullsafe_member_call_expression':
        return { node, name: node.childForFieldName('name')?.text ?? '', recv: node.childForFieldName('object'), args, kwargs, block: null };
      case 'scoped_call_expression':
        return { node, name: node.childForFieldName('name')?.text ?? '', recv: node.childForFieldName('scope'), args, kwargs, block: null };
      case 'function_call_expression':
        return { node, name: (node.childForFieldName('function')?.text ?? '').replace(/^.*\\/, ''), recv: null, args, kwargs, block: null };
      case 'object_creation_expression': {
        const cls = named(node).find((c) => c.type === 'name' || c.type === 'qualified_name');
        return cls ? { node, name: cls.text.replace(/^.*\\/, ''), recv: null, args, kwargs, block: null } : undefined;
      }
    }
    return undefined;
  },
  str(n) {
    if (!n) return undefined;
    if (n.type === 'string') return contentOf(n, S('string_content', 'string_value'), S('escape_sequence'), S());
    if (n.type === 'encapsed_string') return contentOf(n, S('string_content', 'string_value'), S('escape_sequence'), S());
    return undefined;
  },
  isFunc: (n) => n.type === 'anonymous_function' || n.type === 'arrow_function' || n.type === 'anonymous_function_creation_expression',
  params(fn) {
    return named(fn.childForFieldName('parameters')).map((p) => varName(p.childForFieldName('name')?.text ?? '_'));
  },
  ref(n) {
    if (n.type === 'variable_name' || n.type === 'name' || n.type === 'qualified_name') return varName(n.text);
    if (n.type === 'member_access_expression') return varName(n.text).replace(/->/g, '.');
    // [UserController::class, 'show'] and UserController::class . ':show' (Slim) and 'C@m' / 'C:m'
    if (n.type === 'array_creation_expression') {
      const [a, b] = named(n).map((e) => e.firstNamedChild ?? e);
      const cls = a?.type === 'class_constant_access_expression' ? a.firstNamedChild?.text : php.str(a);
      const m = php.str(b);
      return cls && m ? `${cls.replace(/^.*\\/, '')}.${m}` : undefined;
    }
    if (n.type === 'binary_expression') {
      const l = n.childForFieldName('left'), r = n.childForFieldName('right');
      const cls = l?.type === 'class_constant_access_expression' ? l.firstNamedChild?.text : undefined;
      const m = php.str(r);
      return cls && m ? `${cls.replace(/^.*\\/, '')}.${m.replace(/^:+/, '')}` : undefined;
    }
    if (n.type === 'class_constant_access_expression') return n.firstNamedChild?.text.replace(/^.*\\/, '');
    const s = php.str(n);
    if (s && /^[\w\\]+(?:@|::?)\w+$/.test(s)) return s.replace(/^.*\\/, '').replace(/@|::?/, '.');
    return undefined;
  },
  assignedTo(n) {
    const p = n.parent;
    if (p?.type !== 'assignment_expression' || p.childForFieldName('right')?.id !== n.id) return undefined;
    const left = p.childForFieldName('left');
    return left ? php.ref(left) : undefined;
  },
  funcDefs: S('function_definition', 'method_declaration'),
  entries(n) {
    if (n.type !== 'array_creation_expression') return undefined;
    const m = new Map<string, Node>();
    for (const e of named(n)) {
      const [k, v] = named(e);
      const key = k && v ? php.str(k) : undefined;
      if (key !== undefined && v) m.set(key, v);
    }
    return m;
  },
  items: (n) => (n.type === 'array_creation_expression' ? named(n).map((e) => e.firstNamedChild ?? e) : undefined),
};

const ruby: RouteSyntax = {
  calls: S('call'),
  call(node) {
    const m = node.childForFieldName('method');
    if (!m) return undefined;
    const args: Node[] = [];
    const kwargs = new Map<string, Node>();
    for (const a of named(node.childForFieldName('arguments'))) {
      if (a.type === 'pair') {
        const k = a.childForFieldName('key'), v = a.childForFieldName('value');
        if (k && v) kwargs.set(k.text.replace(/^:|:$/g, ''), v);
      } else args.push(a);
    }
    return { node, name: m.text, recv: node.childForFieldName('receiver'), args, kwargs, block: node.childForFieldName('block') };
  },
  str(n) {
    if (!n || n.type !== 'string') return undefined;
    return contentOf(n, S('string_content'), S('escape_sequence'), S());
  },
  isFunc: (n) => n.type === 'do_block' || n.type === 'block' || n.type === 'lambda',
  params(fn) {
    return named(fn.childForFieldName('parameters')).map((p) => (p.type === 'identifier' ? p.text : p.firstNamedChild?.text ?? '_'));
  },
  ref: (n) => (n.type === 'identifier' || n.type === 'constant' || n.type === 'simple_symbol' ? n.text.replace(/^:/, '') : undefined),
  assignedTo(n) {
    const p = n.parent;
    if (p?.type !== 'assignment' || p.childForFieldName('right')?.id !== n.id) return undefined;
    return p.childForFieldName('left')?.text;
  },
  funcDefs: S('method', 'singleton_method'),
  entries: () => undefined,
  items: (n) => (n.type === 'array' ? named(n) : undefined),
};

const rust: RouteSyntax = {
  calls: S('call_expression'),
  call(node) {
    const fn = node.childForFieldName('function');
    if (!fn) return undefined;
    const args = named(node.childForFieldName('arguments'));
    if (fn.type === 'field_expression') return { node, name: fn.childForFieldName('field')?.text ?? '', recv: fn.childForFieldName('value'), args, kwargs: new Map(), block: null };
    if (fn.type === 'scoped_identifier') return { node, name: fn.childForFieldName('name')?.text ?? '', recv: fn.childForFieldName('path'), args, kwargs: new Map(), block: null };
    if (fn.type === 'identifier') return { node, name: fn.text, recv: null, args, kwargs: new Map(), block: null };
    if (fn.type === 'generic_function') {
      const inner = fn.childForFieldName('function');
      const name = inner?.type === 'scoped_identifier' ? inner.childForFieldName('name')?.text : inner?.text;
      return name ? { node, name, recv: inner?.type === 'scoped_identifier' ? inner.childForFieldName('path') : null, args, kwargs: new Map(), block: null } : undefined;
    }
    return undefined;
  },
  str(n) {
    if (!n) return undefined;
    if (n.type === 'raw_string_literal') return named(n).map((c) => c.text).join('');
    if (n.type === 'string_literal') return contentOf(n, S('string_content'), S('escape_sequence'), S());
    return undefined;
  },
  isFunc: (n) => n.type === 'closure_expression',
  params(fn) {
    return named(fn.childForFieldName('parameters')).map((p) => (p.type === 'identifier' ? p.text : (p.childForFieldName('pattern') ?? p.firstNamedChild)?.text ?? '_'));
  },
  ref: (n) => (n.type === 'identifier' || n.type === 'scoped_identifier' || n.type === 'field_expression' ? n.text.replace(/\s+/g, '') : undefined),
  assignedTo(n) {
    const p = n.parent;
    if (p?.type === 'let_declaration' && p.childForFieldName('value')?.id === n.id) return p.childForFieldName('pattern')?.text.replace(/^mut\s+/, '');
    if (p?.type === 'assignment_expression' && p.childForFieldName('right')?.id === n.id) return p.childForFieldName('left')?.text;
    return undefined;
  },
  funcDefs: S('function_item'),
  entries: () => undefined,
  items: () => undefined,
};

/** The syntax adapter of each grammar (tsx shares JavaScript's; TypeScript's node names are the same). */
export const ROUTE_SYNTAX: Record<GrammarName, RouteSyntax> = {
  go, python, javascript, typescript: javascript, tsx: javascript, php, ruby, rust,
};
