/**
 * A caller's arguments, read as what they tell of the callee's parameters (null or not, a constant boolean, a literal,
 * empty or not), and the branches of the callee they settle: a statement in a branch that is dead for a caller does
 * not run for that caller (`taxRate(&order)` never takes `if o == nil { … }`; `loadTeam(id, false)` never reads the
 * members). One set of patterns for every language's spelling (`nil`, `None`, `null`, `undef`; `is None`, `.nil?`,
 * `defined`, `is_none()`).
 */
import type { CallSite, FunctionDef, Guard } from '../model';
import type { Truthiness } from '../source/lang/truthiness';

/** What an argument is known to be. */
export type ArgFact = { kind: 'nil' } | { kind: 'bool'; value: boolean } | { kind: 'literal'; text: string; quoted: boolean } | { kind: 'value' }
  | { kind: 'empty' } | { kind: 'nonempty' } | { kind: 'param'; name: string };

/** A branch a statement needs taken, on a parameter of the function it is in. */
export interface Need { param: string; condition: string; otherwise: boolean }

const NIL = /^(?:nil|null|None|NULL|undef|undefined|Option::None)$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const KEYWORD = /^:?([A-Za-z_]\w*)\s*(?:=(?!=)|:(?!:)|=>)\s*([\s\S]+)$/;

/** The keyword of a keyword argument (`with_members=False`, `with_members: false`), and its value. */
function keywordOf(text: string): { name?: string; value: string } {
  const m = KEYWORD.exec(text.trim());
  return m ? { name: m[1], value: m[2].trim() } : { value: text.trim() };
}

/** What one argument text tells; `loopVars`: names bound by the loops around the call (elements of what they walk). */
export function argFact(text: string, loopVars: readonly string[], callerParams: readonly string[] | undefined): ArgFact | undefined {
  const t = text.trim();
  if (!t) return undefined;
  if (NIL.test(t)) return { kind: 'nil' };
  if (TRUE.test(t)) return { kind: 'bool', value: true };
  if (FALSE.test(t)) return { kind: 'bool', value: false };
  const str = /^(?:[rbfu]?)(["'`])([^"'`\\]*)\1$/.exec(t);
  if (str) return { kind: 'literal', text: str[2], quoted: true };
  if (/^-?\d+(?:\.\d+)?$/.test(t)) return { kind: 'literal', text: t, quoted: false };
  if (/^(?:\[\s*\]|\{\s*\}|\(\s*\)|array\(\s*\)|vec!\[\s*\]|Vec::new\(\)|\[\][\w.*]+\{\s*\}|new Array\(\))$/.test(t)) return { kind: 'empty' };
  if (/^\[[^\]]*\S[^\]]*\]$/.test(t)) return { kind: 'nonempty' };
  // `&order`, `Some(o)`, `new Order(…)`, `Order{…}`, `\%h`: an object made or taken the address of, never null.
  if (/^(?:&|\\|Some\(|new\s|[A-Z]\w*(?:::\w+)*\s*\{)/.test(t)) return { kind: 'value' };
  const id = /^[$@]?([A-Za-z_]\w*)$/.exec(t);
  if (id) {
    if (loopVars.includes(id[1])) return { kind: 'value' };
    if (callerParams?.includes(id[1])) return { kind: 'param', name: id[1] };
  }
  return undefined;
}

/** The argument a call gives for parameter `param` of `def` (by keyword, else by position). */
export function argumentFor(call: CallSite, def: FunctionDef, param: string): string | undefined {
  if (!call.args || !def.params) return undefined;
  const positional: string[] = [];
  for (const a of call.args) {
    const k = keywordOf(a);
    if (k.name === param) return k.value;
    if (k.name === undefined) positional.push(a);
  }
  const i = def.params.indexOf(param);
  return i >= 0 && i < positional.length ? positional[i] : undefined;
}

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The value of `condition` when parameter `p` is known to be `f`, or undefined when that does not settle it;
 * `truth`: what the callee's language counts as false. Conditions combining several tests (`&&`, `||`) are not settled.
 */
export function settle(condition: string, p: string, f: ArgFact, truth: Truthiness): boolean | undefined {
  let c = condition.trim();
  while (/^\((.*)\)$/s.test(c)) c = c.slice(1, -1).trim();
  if (/&&|\|\||\band\b|\bor\b/.test(c)) return undefined;
  const P = `[$@]?(?:self\\.|this\\.)?${esc(p)}`;
  const nil = f.kind === 'nil';
  const known = f.kind !== 'param';
  const notNull = f.kind === 'value' || f.kind === 'bool' || f.kind === 'literal' || f.kind === 'empty' || f.kind === 'nonempty';
  const isNil = nil ? true : notNull ? false : undefined;
  const m = (re: string) => new RegExp(`^${re}$`).test(c);
  const NILS = '(?:nil|null|None|NULL|undef|undefined)';
  if (m(`${P}\\s*(?:===?|is)\\s*${NILS}`) || m(`${NILS}\\s*===?\\s*${P}`) || m(`${P}\\.(?:nil\\?|is_none\\(\\))`) || m(`is_null\\(\\s*${P}\\s*\\)`)
    || m(`(?:!|not\\s+)\\s*defined\\s*\\(?\\s*${P}\\s*\\)?`)) return isNil;
  if (m(`${P}\\s*(?:!==?|is\\s+not)\\s*${NILS}`) || m(`${NILS}\\s*!==?\\s*${P}`) || m(`${P}\\.is_some\\(\\)`) || m(`(?:!|not\\s+)\\s*${P}\\.nil\\?`)
    || m(`defined\\s*\\(?\\s*${P}\\s*\\)?`) || m(`isset\\(\\s*${P}\\s*\\)`) || m(`!\\s*is_null\\(\\s*${P}\\s*\\)`) || m(`let\\s+Some\\(.*\\)\\s*=\\s*&?${P}`)) {
    return isNil === undefined ? undefined : !isNil;
  }
  const value = truthy(f, truth);
  if (m(P)) return value;
  if (m(`(?:!|not\\s+)\\s*${P}`)) return value === undefined ? undefined : !value;
  const eq = new RegExp(`^${P}\\s*(?:===?|eq)\\s*(["'\`])([^"'\`]*)\\1$`).exec(c) ?? new RegExp(`^(["'\`])([^"'\`]*)\\1\\s*(?:===?|eq)\\s*${P}$`).exec(c);
  if (eq && known) return f.kind === 'literal' ? f.text === eq[2] : nil || f.kind === 'bool' ? false : undefined;
  const ne = new RegExp(`^${P}\\s*(?:!==?|ne)\\s*(["'\`])([^"'\`]*)\\1$`).exec(c);
  if (ne && known) return f.kind === 'literal' ? f.text !== ne[2] : nil ? true : undefined;
  const empty = m(`len\\(\\s*${P}\\s*\\)\\s*==\\s*0`) || m(`${P}\\.(?:empty\\?|is_empty\\(\\)|length\\s*===?\\s*0|size\\s*==\\s*0)`) || m(`empty\\(\\s*${P}\\s*\\)`);
  if (empty) return f.kind === 'empty' ? true : f.kind === 'nonempty' ? false : undefined;
  return undefined;
}

/** Whether `f` is true in a condition of a language with `truth` (`0` is false in Perl and Python, true in Ruby). */
export function truthy(f: ArgFact, truth: Truthiness): boolean | undefined {
  switch (f.kind) {
    case 'nil': return false;
    case 'bool': return f.value;
    case 'value': case 'nonempty': return true;
    case 'empty': return truth.empty;
    case 'literal':
      if (f.quoted) return truth.falseStrings ? !truth.falseStrings.includes(f.text) : undefined;
      return truth.numbers === 'none' ? undefined : truth.numbers === 'all' || Number(f.text) !== 0;
    default: return undefined;
  }
}

/** The needs of a statement or call in `def`: the branches around it that test one of `def`'s parameters. */
export function needsOf(guards: readonly Guard[] | undefined, def: FunctionDef): Need[] {
  const out: Need[] = [];
  if (!guards || !def.params) return out;
  for (const g of guards) {
    for (const p of def.params) {
      if (new RegExp(`(?:^|[^\\w])[$@]?${esc(p)}(?:$|[^\\w])`).test(g.condition)) out.push({ param: p, condition: g.condition, otherwise: !!g.otherwise });
    }
  }
  return out;
}

/**
 * Carries `needs` (on the callee `def`'s parameters) through one call: undefined when the call's arguments make one
 * of them impossible (the statement is dead for this caller; `truth`: the callee's language's false values); else the needs that stand on the caller's own
 * parameters (an argument passed on unchanged), with the call's own branches added.
 */
export function throughCall(needs: readonly Need[], call: CallSite, def: FunctionDef, caller: FunctionDef | undefined, loopVars: readonly string[],
  truth: Truthiness): Need[] | undefined {
  const out: Need[] = [];
  for (const n of needs) {
    const arg = argumentFor(call, def, n.param);
    if (arg === undefined) continue;
    const f = argFact(arg, loopVars, caller?.params);
    if (!f) continue;
    if (f.kind === 'param') {
      out.push({ param: f.name, condition: n.condition.replace(new RegExp(`(^|[^\\w])([$@]?)${esc(n.param)}(?=$|[^\\w])`, 'g'), `$1$2${f.name}`), otherwise: n.otherwise });
      continue;
    }
    const v = settle(n.condition, n.param, f, truth);
    if (v !== undefined && v === n.otherwise) return undefined;
  }
  if (caller) out.push(...needsOf(call.guards, caller));
  return out;
}

/** A key for memoising a walk per (function, needs). */
export function needsKey(needs: readonly Need[]): string {
  return needs.map((n) => `${n.param}\u0001${n.condition}\u0001${n.otherwise ? 1 : 0}`).sort().join('\u0002');
}
