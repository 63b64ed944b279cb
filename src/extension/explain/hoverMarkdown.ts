/**
 * The Markdown of the EXPLAIN hover: the verdict, the suggested indexes with command links, the plan
 * as a table (collapsed), the findings and what was substituted for placeholders. Pure (unit-tested under plain Node):
 * everything quoted from the source, the plan or the server is escaped, and the only links are the
 * command links built here, whose ids are returned so the hover can trust exactly those.
 */
import { formatCount } from '../../core/format/numbers';
import type { IndexSuggestion } from '../../core/model';
import { indexFixSets } from '../../core/analysis/indexFixSets';
import type { PlanFinding } from '../../core/analysis/planFindings';
import type { Plan } from '../../core/plan/planModel';
import type { Substitution } from '../../core/sql/fillPlaceholders';

/** What the hover shows for one statement (ExplainResult's fields, plus the advice and the server). */
export interface ExplainHoverInput {
  sql: string;
  plan?: Plan;
  findings: readonly PlanFinding[];
  substitutions: readonly Substitution[];
  filledSql?: string;
  explainedSql?: string;
  /** Clauses left out of what was explained (`FOR UPDATE`, `INTO @x`). */
  explainedWithout?: readonly string[];
  /** How the plan was read, when a person should know (JSON unreadable, tabular shown). */
  planNote?: string;
  skipped?: string;
  /** `notExplained`: the failure says nothing against the statement (another database's table, a lock …). */
  error?: { kind: string; message: string; notExplained?: string };
  suggestions: readonly IndexSuggestion[];
  /** `MariaDB 10.11.6` */
  server?: string;
  cached?: boolean;
  /** The statement's last measurement (the user's Measure action), shown beside the estimates. */
  measured?: {
    rowsRead: number; rowsSent: number; ms: number; capped: boolean;
    accesses: readonly { table: string; estimate: number | null; rowsRead: number; loops: number; ms?: number }[];
    findings: readonly PlanFinding[];
  };
  /** Why Measure does not apply to this statement (a locking read …); no link then. */
  measureRefusal?: string;
  /** How Measure is bounded, for the link's label (`at most 1,000,000 rows examined and 5 s`). */
  measureLimits?: string;
}

/** Command ids the links may use and how their arguments are built. */
export interface HoverCommands {
  addToDatabase: string;
  addToSchemaFile: string;
  copyDdl: string;
  showLog: string;
  /** The Measure command (runs the SELECT under ANALYZE); no link when absent. */
  measure?: string;
  /** The argument of the Measure link (identifies the site). */
  measureArgs?: unknown;
  /** The argument object each index link carries (identifies the site and the suggestion). */
  args: (suggestion: IndexSuggestion) => unknown;
  /** The argument of the links that add every index the statement needs at once (when it needs several). */
  allArgs?: unknown;
  /** "Show plan": opens the report's Plan tab on this statement. */
  showPlan?: { command: string; args: unknown };
}

const MD_SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~&]/g;

/** Escapes text so Markdown renders it literally (no links, emphasis, HTML or table breaks). */
export function escapeMarkdown(text: string): string {
  return text.replace(MD_SPECIAL, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** An inline code span that holds `text` verbatim, whatever backticks it contains. */
export function inlineCode(text: string): string {
  const one = text.replace(/\s+/g, ' ');
  const longest = Math.max(0, ...(one.match(/`+/g) ?? []).map((r) => r.length));
  const ticks = '`'.repeat(longest + 1);
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${one}${pad}${ticks}`;
}

/** A fenced code block that no backtick run inside `text` can close early. */
export function codeBlock(text: string, lang = 'sql'): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

/** One table cell: escaped, `—` for nothing. */
function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined || v === '') return '—';
  return escapeMarkdown(String(v));
}

export const PLAN_COLUMNS = ['id', 'select_type', 'table', 'type', 'possible_keys', 'key', 'key_len', 'ref', 'rows', 'filtered', 'Extra'] as const;

/** The plan as a Markdown table with the columns of tabular EXPLAIN. */
export function planTable(plan: Plan): string {
  const head = `| ${PLAN_COLUMNS.join(' | ')} |`;
  const sep = `|${PLAN_COLUMNS.map((c) => (c === 'rows' || c === 'filtered' || c === 'id' ? ' ---: ' : ' --- ')).join('|')}|`;
  const rows = plan.rows.map((r) => `| ${[
    cell(r.id), cell(r.selectType), cell(r.table), cell(r.type), cell(r.possibleKeys.join(', ')), cell(r.key),
    cell(r.keyLen), cell(r.ref), cell(r.rows === null ? null : formatCount(r.rows)),
    cell(r.filtered === null ? null : `${Number(r.filtered.toFixed(2))}%`), cell(r.extra.join('; ')),
  ].join(' | ')} |`);
  return [head, sep, ...rows].join('\n');
}

/** A command link; `tip` is the link's tooltip (a Markdown link title, its quotes escaped). */
function commandLink(title: string, command: string, args: unknown, tip?: string): string {
  const t = tip ? ` "${tip.replace(/["\\]/g, (c) => `\\${c}`).replace(/\s+/g, ' ')}"` : '';
  return `[${escapeMarkdown(title)}](command:${command}?${encodeURIComponent(JSON.stringify([args]))}${t})`;
}

const SEVERITY_ICON: Record<string, string> = { error: '$(error)', warning: '$(warning)', info: '$(info)', hint: '$(lightbulb)' };
const SEVERITY_RANK: Record<string, number> = { error: 0, warning: 1, info: 2, hint: 3 };

/** The verdict line: the worst finding (and how many more), or why there is no plan, or a clean plan. */
function summaryLine(input: ExplainHoverInput): string {
  const on = `${input.server ? ` · ${escapeMarkdown(input.server)}` : ''}${input.cached ? ' (cached)' : ''}`;
  if (input.error?.notExplained) return `**Query Insight** · $(info) not explained: ${escapeMarkdown(input.error.notExplained)}${on}`;
  if (input.error) return `**Query Insight** · $(error) EXPLAIN failed (${escapeMarkdown(input.error.kind)}): ${escapeMarkdown(input.error.message)}${on}`;
  if (!input.plan) return `**Query Insight** · no plan${input.skipped ? `: ${escapeMarkdown(input.skipped)}` : ''}${on}`;
  const worst = [...input.findings].sort((a, b) => (SEVERITY_RANK[a.severity] ?? 9) - (SEVERITY_RANK[b.severity] ?? 9))[0];
  if (!worst) return `**Query Insight** · $(check) No plan findings${on}`;
  const more = input.findings.length > 1 ? ` (+${input.findings.length - 1} more)` : '';
  return `**Query Insight** · ${SEVERITY_ICON[worst.severity] ?? ''} ${escapeMarkdown(worst.message)}${more}${on}`;
}

/** `posts(user_id, created_at)`: an index by its table and columns, escaped. */
function indexLabel(s: IndexSuggestion): string {
  return escapeMarkdown(`${s.table}(${s.columns.join(', ')})`);
}

/**
 * Builds the hover Markdown and the command ids its links use. Order: the verdict in one line, then
 * every action (the index links, Show plan, Measure) — VS Code caps a hover's height and puts the
 * diagnostics' own part above ours, so what the user came for must come before anything long —
 * then the suggested index with its reason and DDL, the plan collapsed under "Plan" (an HTML
 * `<details>`: the hover must allow that HTML), then the details (findings, substitutions, the
 * statement as explained).
 */
export function explainHoverMarkdown(input: ExplainHoverInput, commands: HoverCommands): { markdown: string; enabledCommands: string[] } {
  const out: string[] = [summaryLine(input)];
  const used = new Set<string>();
  const several = input.suggestions.length > 1;
  for (const s of input.suggestions) {
    const args = commands.args(s);
    out.push('', `${several ? `${indexLabel(s)}: ` : ''}${[
      commandLink('Add index to the database', commands.addToDatabase, args),
      commandLink('Add index to the schema file', commands.addToSchemaFile, args),
      commandLink('Copy DDL', commands.copyDdl, args),
    ].join(' · ')}`);
    used.add(commands.addToDatabase).add(commands.addToSchemaFile).add(commands.copyDdl);
  }
  if (commands.allArgs !== undefined && indexFixSets(input.suggestions, []).length > 1) {
    // why: a join chain needs an index per table, and one alone may leave the plan as it was.
    out.push('', `**All ${input.suggestions.length} indexes together** · ${[
      commandLink('Add them to the database', commands.addToDatabase, commands.allArgs),
      commandLink('Add them to the schema files', commands.addToSchemaFile, commands.allArgs),
      commandLink('Copy DDL', commands.copyDdl, commands.allArgs),
    ].join(' · ')}`);
  }
  const measureNote = `runs this SELECT once under ANALYZE (${input.measureLimits ?? 'within the time limit'}) to count the rows it really reads`;
  const links: string[] = [];
  if (input.plan && commands.showPlan) { links.push(commandLink('Show plan', commands.showPlan.command, commands.showPlan.args)); used.add(commands.showPlan.command); }
  if (commands.measure && input.plan && !input.measureRefusal) {
    links.push(commandLink('Measure', commands.measure, commands.measureArgs ?? {}, `Measure: ${measureNote}`));
    used.add(commands.measure);
  }
  if (input.error && !input.error.notExplained) { links.push(commandLink('Show Log', commands.showLog, {})); used.add(commands.showLog); }
  if (links.length) out.push('', links.join(' · '));
  for (const s of input.suggestions) {
    out.push('', `**Suggested index**${several ? ` ${indexLabel(s)}` : ''} · ${escapeMarkdown(s.reason)}`, '', codeBlock(s.ddl));
    for (const w of s.warnings ?? []) out.push('', `$(warning) ${escapeMarkdown(w)}`);
  }
  if (input.plan && input.plan.rows.length) {
    out.push('', '<details><summary>Plan</summary>', '', planTable(input.plan), '');
    if (input.plan.cost !== undefined) out.push(`Estimated cost: ${escapeMarkdown(formatCount(input.plan.cost))}`, '');
    out.push('</details>');
  }
  if (input.findings.length) {
    out.push('', '**Findings**', '');
    for (const f of input.findings) {
      out.push(`- ${SEVERITY_ICON[f.severity] ?? ''} ${inlineCode(f.code)} ${escapeMarkdown(f.message)}`);
    }
  }
  if (input.measured) {
    const m = input.measured;
    out.push('', `**Measured** (ANALYZE): read ${m.capped ? 'at least ' : ''}${formatCount(m.rowsRead)} rows, returned ${formatCount(m.rowsSent)}, ${escapeMarkdown(m.ms.toFixed(1))} ms`, '',
      '| table | estimated rows | rows read | loops | ms |', '| --- | ---: | ---: | ---: | ---: |',
      ...m.accesses.map((a) => `| ${cell(a.table)} | ${cell(a.estimate === null ? null : formatCount(a.estimate))} | ${cell(formatCount(a.rowsRead))} | ${cell(a.loops)} | ${cell(a.ms === undefined ? null : a.ms.toFixed(1))} |`));
    for (const f of m.findings) out.push('', `- ${SEVERITY_ICON[f.severity] ?? ''} ${inlineCode(f.code)} ${escapeMarkdown(f.message)}`);
  }
  if (commands.measure && input.plan && !input.measureRefusal) {
    out.push('', `*Measure* ${escapeMarkdown(measureNote)}`);
  } else if (input.measureRefusal && input.plan) {
    out.push('', `Not measurable: ${escapeMarkdown(input.measureRefusal)}`);
  }
  if (input.substitutions.length) {
    out.push('', '**Substituted for placeholders**', '');
    for (const s of input.substitutions) {
      const where = s.column ? ` (${escapeMarkdown(s.column)}, ${escapeMarkdown(s.source)})` : ` (${escapeMarkdown(s.source)})`;
      out.push(`- ${inlineCode(s.placeholder)} #${s.index + 1} → ${inlineCode(s.value)}${where}${s.note ? `: ${escapeMarkdown(s.note)}` : ''}`);
    }
  }
  const explained = input.explainedSql ?? input.filledSql;
  if (input.explainedWithout?.length) out.push('', `Explained without ${escapeMarkdown(input.explainedWithout.join(', '))}: the plan is the same, and the read-only session cannot take locks.`);
  if (input.planNote) out.push('', `$(info) ${escapeMarkdown(input.planNote)}`);
  if (input.error?.notExplained && !input.error.notExplained.includes(input.error.message)) out.push('', `The server said: ${escapeMarkdown(input.error.message)}`);
  if (explained && explained !== input.sql) out.push('', 'Explained as:', '', codeBlock(explained));
  return { markdown: out.join('\n'), enabledCommands: [...used] };
}
