/** The run picker of the report's tabs: a labelled select of the recorded runs. */
import type { RunInfo } from '../core/report/runs';
import { h, on, type VNode } from './vnode';

function kindName(kind: RunInfo['kind'], origin?: RunInfo['origin']): string {
  return kind === 'access' ? 'access log' : origin === 'performance_schema' ? 'server stats' : 'slow log';
}

function runOption(r: RunInfo, selected: string | undefined): VNode {
  return h('option', { value: r.id, selected: r.id === selected ? 'selected' : undefined }, `${r.label} (${kindName(r.kind, r.origin)})`);
}

/** A labelled select of `runs`; `onPick` gets the chosen run's id. */
export function runPicker(id: string, label: string, runs: RunInfo[], selected: string | undefined, onPick: (id: string) => void): VNode {
  const select = on(h('select', { id, 'aria-label': label },
    h('option', { value: '', disabled: 'disabled', selected: selected ? undefined : 'selected' }, runs.length ? 'choose a run…' : 'no runs yet'),
    runs.map((r) => runOption(r, selected))), { change: (ev) => onPick(String((ev as { target: { value: string } }).target.value)) });
  return h('label', { class: 'picker' }, `${label} `, select);
}
