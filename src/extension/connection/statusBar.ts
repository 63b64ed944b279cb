/**
 * The connection's status bar item: flavor and version when connected, the reason in the tooltip
 * when failing. A click connects (or, when connected, shows the log). It shows only where it is
 * wanted: when a connection is configured, or when the active editor's file has statements.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { StatementPresence } from '../statementPresence';
import type { ConnectionManager, ConnectionState } from './connectionManager';

/** Whether a state means a connection is configured (and allowed: a trusted workspace). */
export function isConfiguredState(s: ConnectionState): boolean {
  return s.kind !== 'unconfigured' && s.kind !== 'untrusted';
}

/** Text, tooltip and click command of the item for one state. Exported for tests of the wording. */
export function statusBarView(s: ConnectionState): { text: string; tooltip: string; command: string; warning: boolean } {
  switch (s.kind) {
    case 'unconfigured':
      return { text: '$(database) Query Insight: no database', tooltip: 'No database configured. Click to connect (values from env.sh, .env or docker-compose.yml are offered).', command: COMMANDS.connectDatabase, warning: false };
    case 'untrusted':
      return { text: '$(database) Query Insight: restricted', tooltip: 'This workspace is not trusted: its connection settings are ignored.', command: COMMANDS.showLog, warning: false };
    case 'idle':
      return { text: '$(database) not connected', tooltip: `${s.target}\nConnects when a statement is explained. Click to connect now.`, command: COMMANDS.connectDatabase, warning: false };
    case 'connecting':
      return { text: '$(sync~spin) connecting…', tooltip: s.target, command: COMMANDS.showLog, warning: false };
    case 'connected': {
      const flavor = s.server.flavor === 'mariadb' ? 'MariaDB' : 'MySQL';
      const version = /^[\d.]+/.exec(s.server.version)?.[0] ?? s.server.version;
      return { text: `$(database) ${flavor} ${version}`, tooltip: `Connected: ${s.target}\n${s.server.version}\nClick to show the log.`, command: COMMANDS.showLog, warning: false };
    }
    case 'failing':
      return { text: '$(error) database failing', tooltip: `${s.target}\n${s.reason}\nClick to reconnect or change the connection.`, command: COMMANDS.connectDatabase, warning: true };
  }
}

export function createStatusBar(manager: ConnectionManager, presence: StatementPresence): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('queryInsight.connection', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Query Insight: database connection';
  let configured: boolean | undefined;
  const show = () => {
    const s = manager.state;
    const v = statusBarView(s);
    item.text = v.text;
    item.tooltip = v.tooltip;
    item.command = v.command;
    item.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    if (configured !== isConfiguredState(s)) {
      configured = isConfiguredState(s);
      void vscode.commands.executeCommand('setContext', 'queryInsight.connectionConfigured', configured);
    }
    if (configured || presence.inEditor) item.show(); else item.hide();
  };
  show();
  return vscode.Disposable.from(manager.onDidChangeState(show), presence.onDidChange(show), item);
}
