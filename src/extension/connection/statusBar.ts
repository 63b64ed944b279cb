/**
 * The connection's status bar item: flavor and version when connected, the reason in the tooltip
 * when failing. A click connects (or, when connected, shows the log).
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { ConnectionManager, ConnectionState } from './connectionManager';

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

export function createStatusBar(manager: ConnectionManager): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('queryInsight.connection', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Query Insight: database connection';
  const show = (s: ConnectionState) => {
    const v = statusBarView(s);
    item.text = v.text;
    item.tooltip = v.tooltip;
    item.command = v.command;
    item.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    item.show();
  };
  show(manager.state);
  const sub = manager.onDidChangeState(show);
  return vscode.Disposable.from(sub, item);
}
