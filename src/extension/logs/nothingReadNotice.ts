/**
 * Tells the user, in one line with "Show Log", that an import read no entry and so changed nothing
 * (no run, the views as they were). The reason comes from core's nothingReadMessage.
 */
import * as vscode from 'vscode';
import { nothingReadMessage, type NothingRead } from '../../core/logs/nothingRead';
import type { Logger } from '../logger';

export function reportNothingRead(logger: Logger, n: NothingRead): void {
  const text = `Query Insight: ${nothingReadMessage(n)}`;
  logger.warn(text);
  void vscode.window.showWarningMessage(text, 'Show Log').then((c) => { if (c) logger.show(); });
}
