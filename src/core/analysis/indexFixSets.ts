/**
 * Which index quick fixes a statement offers: every index the advisor suggests for it, once each
 * however many findings point at it (an index-merge pair for an OR is one fix: both or neither serve),
 * those on a table a finding is about first. A join's other index ("the join also needs
 * livestreams(user_id)") has no finding of its own, as the plan reads that table without a scan; it
 * is offered all the same, after. Pure.
 */
import type { IndexSuggestion } from '../model';

/** The fixes in order, each the suggestions one action applies. */
export function indexFixSets(suggestions: readonly IndexSuggestion[], findingTables: readonly (string | undefined)[]): IndexSuggestion[][] {
  const about = new Set(findingTables.filter((t): t is string => t !== undefined).map((t) => t.toLowerCase()));
  const own = (s: IndexSuggestion): boolean => about.has(s.table.toLowerCase());
  const sets = new Map<string, IndexSuggestion[]>();
  for (const s of [...suggestions.filter(own), ...suggestions.filter((x) => !own(x))]) {
    const key = s.mergeGroup ?? `index:${s.name}`;
    sets.set(key, [...(sets.get(key) ?? []), s]);
  }
  return [...sets.values()];
}
