/**
 * The "Get started" walkthrough's side in the extension: the Copy buttons of its setup snippets, and
 * the context keys its steps complete on. Each key is set from what really happened — a connection
 * that came up, a run the store kept (an import that read something), a comparison shown — never
 * from a command merely being run, since each of those can fail or be cancelled. Each key set is kept
 * in the workspace state and set again at start-up (with those of the stored runs), so work done
 * before a reload, or before Get Started was first opened, shows as done (see completionEventsOf).
 */
import * as vscode from 'vscode';
import type { RunInfo } from '../../core/report/runs';
import { COMMANDS } from '../commands';
import { command, type Feature } from '../feature';
import { snippetOf, WALKTHROUGH_CONTEXT } from './walkthroughSteps';

type Key = (typeof WALKTHROUGH_CONTEXT)[keyof typeof WALKTHROUGH_CONTEXT];

/** The workspace-state entry that keeps the keys already set (the steps done in this workspace). */
const DONE_STATE = 'queryInsight.walkthrough.done';
const KEYS = new Set<string>(Object.values(WALKTHROUGH_CONTEXT));

export const walkthroughFeature: Feature = ({ context, services: deps }) => {
  const set = new Set<Key>();
  const done = (key: Key): void => {
    if (set.has(key)) return;
    set.add(key);
    // why: completion is recorded by VS Code once the key is true; it is never set back to false.
    void vscode.commands.executeCommand('setContext', key, true);
    void deps.state.update(DONE_STATE, [...set]);
  };
  const kept = deps.state.get<unknown>(DONE_STATE);
  if (Array.isArray(kept)) for (const k of kept) if (typeof k === 'string' && KEYS.has(k)) done(k as Key);
  const fromRuns = (runs: readonly RunInfo[]): void => {
    if (runs.some((r) => r.kind === 'access')) done(WALKTHROUGH_CONTEXT.accessLogImported);
    if (runs.some((r) => r.kind === 'slow' && r.origin !== 'performance_schema')) done(WALKTHROUGH_CONTEXT.slowLogImported);
  };
  const { store, panel } = deps.report;
  fromRuns(store.list());
  if (deps.connection.state.kind === 'connected') done(WALKTHROUGH_CONTEXT.connected);
  context.subscriptions.push(
    store.onDidChange(() => fromRuns(store.list())),
    deps.connection.onDidChangeState((s) => { if (s.kind === 'connected') done(WALKTHROUGH_CONTEXT.connected); }),
    panel.onDidCompare(() => done(WALKTHROUGH_CONTEXT.compared)),
    command(deps.logger, COMMANDS.copyWalkthroughSnippet, 'could not copy the snippet', async (id?: unknown): Promise<boolean> => {
      const snippet = snippetOf(id);
      if (!snippet) { deps.logger.warn(`copy snippet: unknown snippet ${JSON.stringify(id)?.slice(0, 40)}`); return false; }
      await vscode.env.clipboard.writeText(snippet.text);
      vscode.window.setStatusBarMessage(`$(check) Query Insight: copied ${snippet.what}`, 5000);
      return true;
    }),
  );
};
