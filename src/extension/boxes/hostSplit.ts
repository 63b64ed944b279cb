/**
 * The per-box split of a row's count (`hosts: {name: count}`), as tooltips show it: a table row
 * with each box's count and share, box names escaped (they come from settings or log sources).
 * Pure: unit-tested.
 */
import { escapeMarkdown } from '../explain/hoverMarkdown';

/** `| label | isu1 1,200 (60 %) · isu2 800 (40 %) |`, or undefined when the row was not split by box. */
export function hostSplitRow(label: string, hosts: Readonly<Record<string, number>> | undefined): string | undefined {
  if (!hosts) return undefined;
  const entries = Object.entries(hosts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (entries.length === 0) return undefined;
  const total = entries.reduce((n, [, c]) => n + c, 0);
  const cell = entries.map(([h, c]) => `${escapeMarkdown(h)} ${c.toLocaleString('en-US')} (${total ? Math.round((c / total) * 100) : 0} %)`).join(' · ');
  return `| ${label} | ${cell} |`;
}
