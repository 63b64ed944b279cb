/**
 * The typed configuration adapter over vscode.workspace.getConfiguration, and the one change
 * handler: `watchConfig` calls its listener once at start-up and again whenever a
 * `queryInsight.*` setting changes, so start-up and change take the same path.
 */
import * as vscode from 'vscode';
import { readSettings, SECTION, SETTINGS, type QueryInsightConfig, type SettingKey } from './settings';
import type { Logger } from './logger';

/** Reads every setting (for `scope`, a resource or workspace folder, when given). Ill-typed values are logged. */
export function readConfig(logger: Logger, scope?: vscode.ConfigurationScope): QueryInsightConfig {
  // why: VS Code warns when a resource-scoped setting is read without a resource and a window-scoped
  // one with a resource; each setting is read the way its scope expects (null = "any resource").
  const resource = vscode.workspace.getConfiguration(SECTION, scope ?? null);
  const window = vscode.workspace.getConfiguration(SECTION);
  const { config, problems } = readSettings((key) => (SETTINGS[key].scope === 'resource' ? resource : window).get(key));
  for (const p of problems) logger.warn(`setting ${p.key}: ${p.message}`);
  return config;
}

/** Tells whether a setting (short key such as `scan.exclude`, or an area such as `scan`) changed. */
export type Affects = (key: SettingKey | 'scan' | 'connection') => boolean;

/**
 * Runs `listener` now (everything counts as changed) and on every change of a queryInsight setting.
 * Returns the disposable of the change subscription.
 */
export function watchConfig(logger: Logger, listener: (config: QueryInsightConfig, affects: Affects) => void): vscode.Disposable {
  listener(readConfig(logger), () => true);
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration(SECTION)) return;
    const affects: Affects = (key) => e.affectsConfiguration(`${SECTION}.${key}`);
    const changed = (Object.keys(SETTINGS) as SettingKey[]).filter((k) => affects(k));
    logger.info(`settings changed: ${changed.join(', ') || SECTION}`);
    listener(readConfig(logger), affects);
  });
}
