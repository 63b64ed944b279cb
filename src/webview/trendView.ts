/**
 * The trend of the recorded rounds in the report's Compare tab: the score by commit, then the mean
 * time per request of the top endpoints by commit, one bar per round (oldest first), so a player
 * sees which commit moved the score and which endpoint followed it.
 */
import { formatSeconds } from '../core/report/compare';
import type { Trend } from '../core/runs/trend';
import { barChart } from './charts';
import { h, type VNode } from './vnode';

/** Endpoint series drawn. */
const SERIES = 3;

/** `3f2a1c4 · 20240501-1203`: a round's bar label. */
function roundLabel(t: Trend, i: number): string {
  const p = t.points[i];
  return `${p.commit} · ${p.id}`;
}

export function trendSection(t: Trend | undefined): VNode | undefined {
  if (!t || !t.points.length) return undefined;
  const score = barChart(t.points.map((p, i) => ({
    label: roundLabel(t, i), valueText: p.failed !== undefined ? 'FAILED' : p.score === null ? 'no score' : String(p.score),
    segments: [{ cls: p.failed !== undefined ? 'regression' : 'gain', name: 'score', value: p.score ?? 0 }],
  })), { title: 'Score by commit (recorded runs, oldest first)', tick: (v) => String(Math.round(v)) });
  const endpoints = t.series.filter((s) => s.kind === 'endpoint').slice(0, SERIES).map((s) => barChart(t.points.map((_, i) => ({
    label: roundLabel(t, i), valueText: s.values[i] ? `${formatSeconds(s.values[i]!.mean)} (${s.values[i]!.count} req)` : 'not requested',
    segments: [{ cls: 'p50', name: 'mean', value: s.values[i]?.mean ?? 0 }],
  })), { title: `${s.key}: mean time per request by commit`, tick: formatSeconds }));
  return h('section', { id: 'trend', class: 'trend' }, h('h2', {}, 'Trend of the recorded runs'), score, ...endpoints);
}
