/**
 * One LangSpec per tree-sitter grammar: the node types and field names of Go, Ruby, Python,
 * PHP, JavaScript/TypeScript and Rust that SQL discovery needs. Checked against the grammars of
 * @vscode/tree-sitter-wasm 0.3.1.
 */
import type { SyntaxNode as Node } from '../../syntaxTree';
import type { GrammarName } from './treeSitter';
import {
  type CallShape, type LangSpec, type FunctionShape, childOfType, compact, iterableOf, iterableText, set, splitCallee, uniformSpec,
} from './langSpec';
import { GO_IMPORTS, JS_IMPORTS, PHP_IMPORTS, PYTHON_IMPORTS, RUBY_IMPORTS, RUST_IMPORTS } from './importSyntax';

const NO = set();

function shape(callee: string, args: Node | null | undefined): CallShape {
  const { name, receiver } = splitCallee(callee);
  // why: every shape has every member (loop and detach set later on some), so the walkers read one object shape.
  return { callee, name, receiver, args, loop: undefined, detach: undefined };
}

function named(node: Node | null | undefined, field = 'name'): FunctionShape | undefined {
  const n = node?.childForFieldName(field);
  return n ? { name: n.text, nameNode: n } : undefined;
}

function firstNamedArg(args: Node | null | undefined, types: ReadonlySet<string>): Node | null {
  if (!args) return null;
  for (const c of args.namedChildren) {
    if (!c) continue;
    if (types.has(c.type)) return c;
    // why: PHP wraps each argument in an `argument` node.
    if (c.type === 'argument' && c.firstNamedChild && types.has(c.firstNamedChild.type)) return c.firstNamedChild;
  }
  return null;
}

/** A C-style `for (i = 0; i < 3; i++)` header without `for` and parentheses (it bounds the count: N+1 severity); undefined for other loops. */
function forHeader(node: Node): string | undefined {
  if (node.type !== 'for_statement') return undefined;
  const body = node.childForFieldName('body');
  const text = node.text.slice(0, body ? body.startIndex - node.startIndex : undefined);
  const m = /^for\s*\(([\s\S]*)\)\s*:?\s*$/.exec(text.trim());
  return m ? m[1].replace(/\s+/g, ' ').trim() : undefined;
}

// ---------------------------------------------------------------- Go

/** `load := func(…) {…}`: a func literal assigned to one variable is named after it, so calls to it can be followed (N+1). */
function goClosureName(node: Node): FunctionShape | undefined {
  const list = node.parent;
  const decl = list?.type === 'expression_list' ? list.parent : null;
  if (!list || !decl || list.namedChildCount !== 1 || !['short_var_declaration', 'assignment_statement', 'var_spec'].includes(decl.type)) return undefined;
  const target = decl.childForFieldName(decl.type === 'var_spec' ? 'name' : 'left');
  const id = target?.type === 'expression_list' ? (target.namedChildCount === 1 ? target.firstNamedChild : null) : target;
  return id && id.type === 'identifier' ? { name: id.text, nameNode: id } : undefined;
}

const go: LangSpec = {
  strings: set('interpreted_string_literal', 'raw_string_literal'),
  rawStrings: set('raw_string_literal'),
  content: set('interpreted_string_literal_content', 'raw_string_literal_content'),
  escape: set('escape_sequence'),
  skip: NO,
  containers: NO,
  binary: set('binary_expression'),
  concatOps: set('+'),
  formatOps: NO,
  implicitConcat: NO,
  transparent: set('parenthesized_expression', 'expression_list'),
  argLists: set('argument_list'),
  chain: set('selector_expression', 'call_expression', 'parenthesized_expression', 'expression_list'),
  calls: set('call_expression'),
  call(node) {
    const s = shape(compact(node.childForFieldName('function')), node.childForFieldName('arguments'));
    // why: errgroup's g.Go(func() error {…}) runs the closure concurrently, like a `go` statement.
    if (s.name === 'Go' && s.args) s.detach = s.args;
    return s;
  },
  functions: set('function_declaration', 'method_declaration', 'func_literal'),
  functionDef(node) {
    if (node.type === 'func_literal') return goClosureName(node);
    const f = named(node);
    if (f && node.type === 'method_declaration') {
      const recv = node.childForFieldName('receiver');
      const t = recv ? /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)?\s*$/.exec(recv.text.replace(/\)$/, '')) : null;
      if (t) f.owner = t[1];
    }
    return f;
  },
  classes: NO,
  className: () => undefined,
  loops: set('for_statement'),
  loop(node) {
    const range = childOfType(node, set('range_clause'));
    if (range) return { kind: 'range', ...iterableOf(range.childForFieldName('right')), body: node.childForFieldName('body') };
    // `for i := 0; i < 3; i++`: the clause bounds the count (a retry loop, a small range; N+1 severity).
    const clause = childOfType(node, set('for_clause'));
    if (clause) return { kind: 'for', ...iterableOf(clause), body: node.childForFieldName('body') };
    // `for rows.Next() { … }`: the condition names what the loop walks (links it to the query behind `rows`, N+1).
    const cond = node.namedChildren.find((c) => c && c.type !== 'for_clause' && c.type !== 'block' && c.type !== 'comment');
    return cond ? { kind: 'for', ...iterableOf(cond), body: node.childForFieldName('body') } : { kind: 'for', body: node.childForFieldName('body') };
  },
  assignments: set('short_var_declaration', 'assignment_statement', 'var_spec', 'const_spec'),
  assignment(node) {
    if (node.type === 'var_spec' || node.type === 'const_spec') return { target: node.childForFieldName('name'), value: node.childForFieldName('value') };
    return { target: node.childForFieldName('left'), value: node.childForFieldName('right') };
  },
  detachers: set('go_statement'),
  formatCalls: new Map([['Sprintf', 'printf'], ['Fprintf', 'printf']]),
  helpers: set('In', 'Rebind', 'Named', 'MustIn'),
  declares: (n) => n.type === 'short_var_declaration' || n.type === 'var_spec' || n.type === 'const_spec',
  imports: GO_IMPORTS,
};

// ---------------------------------------------------------------- Ruby

/**
 * Ruby calls with a block, told apart by what the method does with it. An iterator runs its block once per
 * element, whatever parameters the block takes: Enumerable and Array/Hash methods, Integer#times/upto/step,
 * Kernel#loop, and every `each_*` / `*_each` (each_line, each_slice, find_each …). Any other method's block
 * runs once (transaction, synchronize, File.open, Benchmark.realtime, a connection pool's `with`, Hash#fetch's default).
 */
const RUBY_LOOP_METHODS = set('each', 'map', 'flat_map', 'collect', 'collect_concat', 'select', 'filter', 'filter_map', 'reject',
  'times', 'upto', 'downto', 'step', 'sum', 'find', 'detect', 'find_index', 'inject', 'reduce', 'sort', 'sort_by', 'group_by',
  'partition', 'chunk_while', 'slice_when', 'min', 'max', 'minmax', 'min_by', 'max_by', 'uniq', 'tally_by', 'zip', 'cycle',
  'take_while', 'drop_while', 'delete_if', 'keep_if', 'select!', 'filter!', 'reject!', 'map!', 'collect!', 'transform_values',
  'transform_keys', 'to_h', 'count', 'any?', 'all?', 'none?', 'one?', 'loop', 'with_index', 'with_object', 'foreach', 'scan');
/**
 * Calls that yield each row or record they read to a block that takes it: a driver's `execute(id) do |row|`,
 * `CSV.parse(text) do |row|`, `Dir.glob(pattern) do |path|`. Without block parameters the block is a callback run once.
 */
const RUBY_ROW_BLOCKS = set('execute', 'query', 'xquery', 'fetch', 'select_all', 'parse', 'glob');

/** True when `name` is an iterator (RUBY_LOOP_METHODS, or named each_… / …_each). */
function rubyIterates(name: string): boolean {
  return RUBY_LOOP_METHODS.has(name) || name.startsWith('each_') || name.endsWith('_each');
}

const ruby: LangSpec = {
  strings: set('string'),
  rawStrings: NO,
  content: set('string_content', 'heredoc_content'),
  escape: set('escape_sequence'),
  skip: set('heredoc_end'),
  containers: NO,
  binary: set('binary'),
  concatOps: set('+'),
  formatOps: set('%'),
  implicitConcat: set('chained_string'),
  transparent: set('parenthesized_statements', 'pair'),
  argLists: set('argument_list'),
  chain: set('call', 'parenthesized_statements'),
  calls: set('call'),
  call(node) {
    const recv = node.childForFieldName('receiver');
    const method = node.childForFieldName('method');
    const receiver = recv ? compact(recv) : undefined;
    const methodName = method ? method.text : '';
    const callee = (recv ? receiver + '.' : '') + methodName;
    const s: CallShape = { callee, name: method ? methodName : callee, receiver, args: node.childForFieldName('arguments'), loop: undefined, detach: undefined };
    // why: most calls are neither iterating nor spawning; their block is not looked up (each lookup is a call into wasm).
    const rows = RUBY_ROW_BLOCKS.has(s.name);
    // `Array.new(n) { |i| … }` builds its elements one block run each.
    const loops = rubyIterates(s.name) || s.callee === 'Array.new';
    if (!loops && !rows && s.callee !== 'Thread.new') return s;
    const block = node.childForFieldName('block');
    if (block && loops) s.loop = { kind: s.name, body: block, ...(recv ? iterableOf(recv) : {}) };
    else if (block && rows && block.childForFieldName('parameters')) s.loop = { kind: s.name, body: block, ...iterableOf(node.childForFieldName('arguments') ?? recv) };
    if (block && s.callee === 'Thread.new') s.detach = block;
    return s;
  },
  functions: set('method', 'singleton_method', 'lambda'),
  functionDef(node) {
    if (node.type !== 'lambda') return named(node);
    // `load = ->(id) { … }`: a lambda assigned to a variable is named after it, so calls to it can be followed (N+1).
    const p = node.parent;
    const left = p?.type === 'assignment' ? p.childForFieldName('left') : null;
    return left && left.type === 'identifier' ? { name: left.text, nameNode: left } : undefined;
  },
  classes: set('class', 'module'),
  className: (node) => node.childForFieldName('name')?.text,
  loops: set('for', 'while', 'until'),
  loop(node) {
    if (node.type === 'for') return { kind: 'for', ...iterableOf(node.childForFieldName('value')?.lastNamedChild ?? node.childForFieldName('value')), body: node.childForFieldName('body') };
    return { kind: node.type, body: node.childForFieldName('body') };
  },
  assignments: set('assignment'),
  assignment: (node) => ({ target: node.childForFieldName('left'), value: node.childForFieldName('right') }),
  detachers: NO,
  formatCalls: new Map([['format', 'printf'], ['sprintf', 'printf']]),
  helpers: NO,
  heredocBegin: 'heredoc_beginning',
  heredocBody: 'heredoc_body',
  heredocText(opener, body) {
    // The body node starts with the rest of the opener's line and ends with the closing line's indent.
    let t = body.replace(/^[^\n]*\n/, '').replace(/[ \t]*$/, '');
    if (opener.startsWith('<<~')) {
      const lines = t.split('\n');
      let min = Infinity;
      for (const l of lines) if (l.trim() !== '') min = Math.min(min, /^[ \t]*/.exec(l)![0].length);
      if (min !== Infinity && min > 0) t = lines.map((l) => l.slice(Math.min(min, /^[ \t]*/.exec(l)![0].length))).join('\n');
    }
    return t;
  },
  closureBlocks: set('do_block', 'block'),
  appendOperator: '<<',
  imports: RUBY_IMPORTS,
  bareCalls: {
    node: 'identifier',
    parents: set('body_statement', 'block_body', 'then', 'else', 'ensure', 'begin', 'parenthesized_statements', 'program', 'argument_list', 'array', 'interpolation'),
    fields: set('right', 'receiver', 'condition', 'value'),
  },
};

// ---------------------------------------------------------------- Python

/** Calls that run what they are given as another task or thread. */
const PY_DETACHING = set('create_task', 'gather', 'submit', 'Thread', 'ensure_future', 'run_in_executor', 'apply_async');

const python: LangSpec = {
  strings: set('string'),
  rawStrings: NO,
  content: set('string_content'),
  escape: set('escape_sequence'),
  skip: set('string_start', 'string_end'),
  containers: NO,
  binary: set('binary_operator'),
  concatOps: set('+'),
  formatOps: set('%'),
  implicitConcat: set('concatenated_string'),
  transparent: set('parenthesized_expression', 'keyword_argument', 'expression_list'),
  argLists: set('argument_list'),
  chain: set('attribute', 'call', 'await', 'parenthesized_expression'),
  calls: set('call'),
  call(node) {
    const s = shape(compact(node.childForFieldName('function')), node.childForFieldName('arguments'));
    if (PY_DETACHING.has(s.name) && s.args) s.detach = s.args;
    // `map(lambda x: …, xs)` / `filter(…)`: the lambda runs once per element, like a loop body (N+1).
    if ((s.name === 'map' || s.name === 'filter') && !s.receiver && s.args) {
      const [fn, xs] = s.args.namedChildren;
      if (fn?.type === 'lambda' || fn?.type === 'identifier' || fn?.type === 'attribute') s.loop = { kind: s.name, body: fn, ...iterableOf(xs) };
    }
    return s;
  },
  functions: set('function_definition', 'lambda'),
  functionDef: (node) => (node.type === 'lambda' ? undefined : named(node)),
  classes: set('class_definition'),
  className: (node) => node.childForFieldName('name')?.text,
  loops: set('for_statement', 'while_statement', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression'),
  loop(node) {
    if (node.type === 'for_statement') return { kind: 'for', ...iterableOf(node.childForFieldName('right')), body: node.childForFieldName('body') };
    if (node.type === 'while_statement') return { kind: 'while', body: node.childForFieldName('body') };
    const clause = childOfType(node, set('for_in_clause'));
    return { kind: 'comprehension', ...iterableOf(clause?.childForFieldName('right')), body: node };
  },
  assignments: set('assignment'),
  assignment: (node) => ({ target: node.childForFieldName('left'), value: node.childForFieldName('right') }),
  detachers: NO,
  formatCalls: new Map(),
  formatMethod: { name: 'format', style: 'brace', member: 'attribute' },
  helpers: NO,
  rawPrefix(node) {
    const start = node.firstChild;
    return !!start && /^[a-zA-Z]*[rR]/.test(start.text);
  },
  valueFirstConditional: true,
  doubledPercent: true,
  imports: PYTHON_IMPORTS,
};

// ---------------------------------------------------------------- PHP

const PHP_LOOP_FUNCS = new Map([['array_map', { fn: 0, arr: 1 }], ['array_filter', { fn: 1, arr: 0 }], ['array_walk', { fn: 1, arr: 0 }], ['array_reduce', { fn: 1, arr: 0 }]]);
const PHP_FUNC_NODES = set('anonymous_function', 'arrow_function', 'anonymous_function_creation_expression');

const php: LangSpec = {
  strings: set('string', 'encapsed_string', 'heredoc', 'nowdoc'),
  rawStrings: set('nowdoc'),
  content: set('string_content', 'string_value', 'nowdoc_string'),
  escape: set('escape_sequence'),
  skip: set('heredoc_start', 'heredoc_end'),
  containers: set('heredoc_body', 'nowdoc_body'),
  binary: set('binary_expression'),
  concatOps: set('.'),
  formatOps: NO,
  implicitConcat: NO,
  transparent: set('parenthesized_expression', 'argument'),
  argLists: set('arguments'),
  chain: set('member_call_expression', 'member_access_expression', 'nullsafe_member_call_expression', 'parenthesized_expression'),
  calls: set('function_call_expression', 'member_call_expression', 'scoped_call_expression', 'nullsafe_member_call_expression'),
  call(node) {
    let callee: string;
    if (node.type === 'function_call_expression') callee = compact(node.childForFieldName('function'));
    else {
      const obj = node.childForFieldName(node.type === 'scoped_call_expression' ? 'scope' : 'object');
      callee = `${compact(obj)}${node.type === 'scoped_call_expression' ? '::' : '->'}${node.childForFieldName('name')?.text ?? ''}`;
    }
    const s = shape(callee, node.childForFieldName('arguments'));
    // `\App\Util\next_id(…)`: a namespaced function, its namespace the qualifier.
    const cut = node.type === 'function_call_expression' ? callee.lastIndexOf('\\') : -1;
    if (cut >= 0) { s.name = callee.slice(cut + 1); s.receiver = cut > 0 ? callee.slice(callee.startsWith('\\') ? 1 : 0, cut) : undefined; }
    const lf = PHP_LOOP_FUNCS.get(s.name);
    if (lf && s.args) {
      const args = s.args.namedChildren;
      const fn = args[lf.fn]?.firstNamedChild;
      if (fn && (PHP_FUNC_NODES.has(fn.type) || fn.type === 'string' || fn.type === 'encapsed_string')) s.loop = { kind: s.name, body: fn, ...iterableOf(args[lf.arr]) };
    }
    return s;
  },
  functions: set('function_definition', 'method_declaration', 'anonymous_function', 'arrow_function', 'anonymous_function_creation_expression'),
  functionDef(node) {
    if (!PHP_FUNC_NODES.has(node.type)) return named(node);
    // `$load = function ($id) { … };`: a closure assigned to a variable is named after it (`$load`), so calls to it can be followed (N+1).
    const p = node.parent;
    const left = p?.type === 'assignment_expression' && p.childForFieldName('right')?.startIndex === node.startIndex ? p.childForFieldName('left') : null;
    return left && left.type === 'variable_name' ? { name: left.text, nameNode: left } : undefined;
  },
  classes: set('class_declaration', 'trait_declaration', 'interface_declaration', 'enum_declaration'),
  className: (node) => node.childForFieldName('name')?.text,
  loops: set('foreach_statement', 'for_statement', 'while_statement', 'do_statement'),
  loop(node) {
    if (node.type === 'foreach_statement') return { kind: 'foreach', ...iterableOf(node.namedChildren[0]), body: node.childForFieldName('body') };
    // `while ($row = $stmt->fetch())`: the condition names the statement handle the loop walks (N+1).
    const cond = node.type === 'while_statement' ? node.childForFieldName('condition') : null;
    const header = cond ? iterableText(cond) : forHeader(node);
    return { kind: node.type.replace('_statement', ''), ...(header ? { iterable: header } : {}), body: node.childForFieldName('body') };
  },
  assignments: set('assignment_expression', 'const_element', 'property_element'),
  assignment(node) {
    if (node.type === 'const_element') return { target: node.namedChildren[0], value: node.namedChildren[1] };
    if (node.type === 'property_element') return { target: node.childForFieldName('name'), value: node.childForFieldName('default_value') };
    return { target: node.childForFieldName('left'), value: node.childForFieldName('right') };
  },
  detachers: NO,
  formatCalls: new Map([['sprintf', 'printf'], ['vsprintf', 'printf']]),
  helpers: NO,
  imports: PHP_IMPORTS,
};

// ---------------------------------------------------------------- JavaScript / TypeScript

const JS_LOOP_METHODS = set('forEach', 'map', 'flatMap', 'filter', 'reduce', 'some', 'every', 'find', 'findIndex');
const JS_FUNC_NODES = set('arrow_function', 'function_expression', 'function');

const js: LangSpec = {
  strings: set('string', 'template_string'),
  rawStrings: NO,
  content: set('string_fragment'),
  escape: set('escape_sequence'),
  skip: NO,
  containers: NO,
  binary: set('binary_expression'),
  concatOps: set('+'),
  formatOps: NO,
  implicitConcat: NO,
  transparent: set('parenthesized_expression', 'as_expression', 'satisfies_expression', 'non_null_expression'),
  argLists: set('arguments'),
  chain: set('await_expression', 'member_expression', 'call_expression', 'parenthesized_expression', 'as_expression', 'non_null_expression'),
  calls: set('call_expression'),
  call(node) {
    const fn = node.childForFieldName('function');
    const s = shape(compact(fn), node.childForFieldName('arguments'));
    if (JS_LOOP_METHODS.has(s.name) && fn?.type === 'member_expression') {
      // `xs.map(loadUser)`: a named function runs once per element as much as an inline one.
      const cb = firstNamedArg(s.args, JS_FUNC_NODES) ?? firstNamedArg(s.args, set('identifier', 'member_expression'));
      if (cb) {
        s.loop = { kind: s.name, body: cb, ...iterableOf(fn.childForFieldName('object')) };
        // why: an async callback starts one task per element; Promise.all awaits them together.
        if (cb.firstChild?.type === 'async') s.detach = cb;
      }
    }
    return s;
  },
  functions: set('function_declaration', 'generator_function_declaration', 'method_definition', 'arrow_function', 'function_expression', 'function'),
  functionDef(node) {
    if (!JS_FUNC_NODES.has(node.type)) return named(node);
    const p = node.parent;
    if (p?.type === 'variable_declarator') return named(p);
    if (p?.type === 'pair' || p?.type === 'public_field_definition' || p?.type === 'field_definition') {
      const k = p.childForFieldName('key') ?? p.childForFieldName('name') ?? p.childForFieldName('property');
      return k ? { name: k.text, nameNode: k } : undefined;
    }
    return named(node);
  },
  classes: set('class_declaration', 'class', 'abstract_class_declaration'),
  className: (node) => node.childForFieldName('name')?.text,
  loops: set('for_statement', 'for_in_statement', 'while_statement', 'do_statement'),
  loop(node) {
    if (node.type === 'for_in_statement') {
      const op = node.childForFieldName('operator')?.text ?? 'in';
      return { kind: `for-${op}`, ...iterableOf(node.childForFieldName('right')), body: node.childForFieldName('body') };
    }
    return { kind: node.type.replace('_statement', ''), iterable: forHeader(node), body: node.childForFieldName('body') };
  },
  assignments: set('variable_declarator', 'assignment_expression', 'public_field_definition', 'field_definition'),
  assignment(node) {
    if (node.type === 'variable_declarator') return { target: node.childForFieldName('name'), value: node.childForFieldName('value') };
    if (node.type === 'assignment_expression') return { target: node.childForFieldName('left'), value: node.childForFieldName('right') };
    return { target: node.childForFieldName('name') ?? node.childForFieldName('property'), value: node.childForFieldName('value') };
  },
  detachers: NO,
  formatCalls: new Map([['format', 'node']]),
  helpers: NO,
  declares: (n) => n.type === 'variable_declarator' && n.parent?.type === 'lexical_declaration',
  imports: JS_IMPORTS,
};

// ---------------------------------------------------------------- Rust

const TOKEN_TREE = set('token_tree');
const RUST_LOOP_METHODS = set('map', 'for_each', 'filter_map', 'flat_map', 'filter', 'try_for_each', 'fold', 'then', 'try_fold');

const rust: LangSpec = {
  strings: set('string_literal', 'raw_string_literal'),
  rawStrings: set('raw_string_literal'),
  content: set('string_content'),
  escape: set('escape_sequence'),
  skip: NO,
  containers: NO,
  binary: set('binary_expression'),
  concatOps: set('+'),
  formatOps: NO,
  implicitConcat: NO,
  transparent: set('parenthesized_expression', 'reference_expression'),
  argLists: set('arguments', 'token_tree'),
  chain: set('field_expression', 'call_expression', 'await_expression', 'try_expression', 'parenthesized_expression'),
  calls: set('call_expression', 'macro_invocation'),
  call(node) {
    if (node.type === 'macro_invocation') {
      const tt = childOfType(node, set('token_tree'));
      return shape(compact(node.childForFieldName('macro')) + '!', tt);
    }
    const fn = node.childForFieldName('function');
    const s = shape(compact(fn).replace(/::<.*>$/, ''), node.childForFieldName('arguments'));
    if (RUST_LOOP_METHODS.has(s.name) && fn?.type === 'field_expression') {
      const cb = firstNamedArg(s.args, set('closure_expression', 'identifier', 'scoped_identifier'));
      if (cb) {
        s.loop = { kind: s.name, body: cb, ...iterableOf(fn.childForFieldName('value')) };
        const body = cb.childForFieldName('body');
        if (body?.type === 'async_block') s.detach = body;
      }
    }
    if ((s.name === 'spawn' || s.name === 'spawn_blocking') && s.args) s.detach = s.args;
    return s;
  },
  functions: set('function_item', 'closure_expression'),
  functionDef(node) {
    if (node.type !== 'closure_expression') return named(node);
    // `let load = |id| { … };`: a closure bound by `let` is named after it, so calls to it can be followed (N+1).
    const p = node.parent;
    const pat = p?.type === 'let_declaration' && p.childForFieldName('value')?.startIndex === node.startIndex ? p.childForFieldName('pattern') : null;
    return pat && pat.type === 'identifier' ? { name: pat.text, nameNode: pat } : undefined;
  },
  classes: set('impl_item', 'trait_item'),
  className(node) {
    const t = node.childForFieldName(node.type === 'impl_item' ? 'type' : 'name');
    return t ? t.text.replace(/<.*$/s, '') : undefined;
  },
  loops: set('for_expression', 'while_expression', 'loop_expression'),
  loop(node) {
    if (node.type === 'for_expression') return { kind: 'for', ...iterableOf(node.childForFieldName('value')), body: node.childForFieldName('body') };
    return { kind: node.type.replace('_expression', ''), body: node.childForFieldName('body') };
  },
  assignments: set('let_declaration', 'assignment_expression', 'const_item', 'static_item'),
  assignment(node) {
    if (node.type === 'let_declaration') return { target: node.childForFieldName('pattern'), value: node.childForFieldName('value') };
    if (node.type === 'assignment_expression') return { target: node.childForFieldName('left'), value: node.childForFieldName('right') };
    return { target: node.childForFieldName('name'), value: node.childForFieldName('value') };
  },
  detachers: NO,
  formatCalls: new Map([['format!', 'brace'], ['write!', 'brace'], ['writeln!', 'brace'], ['println!', 'brace'], ['print!', 'brace']]),
  helpers: NO,
  joinedArgs(node) {
    if (node.type !== 'macro_invocation' || !/^(?:(?:std|core)::)?concat$/.test(compact(node.childForFieldName('macro')))) return undefined;
    return childOfType(node, TOKEN_TREE) ?? undefined;
  },
  declares: (n) => n.type === 'let_declaration',
  appendMethod: 'push_str',
  queryBuilders: true,
  imports: RUST_IMPORTS,
};

/** The spec for each grammar (tsx and typescript share JavaScript's). */
const [goSpec, rubySpec, pythonSpec, phpSpec, jsSpec, rustSpec] = [go, ruby, python, php, js, rust].map(uniformSpec);

export const SPECS: Record<GrammarName, LangSpec> = {
  go: goSpec, ruby: rubySpec, python: pythonSpec, php: phpSpec, javascript: jsSpec, typescript: jsSpec, tsx: jsSpec, rust: rustSpec,
};
