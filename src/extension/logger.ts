/**
 * The extension's one log channel ("Query Insight" in the Output panel, level set by the user with
 * "Developer: Set Log Level"). Nothing in src/extension writes to the console; core never logs.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './commands';

export class Logger implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;

  constructor(name = 'Query Insight') {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  trace(message: string): void { this.channel.trace(message); }
  debug(message: string): void { this.channel.debug(message); }
  info(message: string): void { this.channel.info(message); }
  warn(message: string): void { this.channel.warn(message); }

  error(message: string, err?: unknown): void {
    if (err === undefined) this.channel.error(message);
    else this.channel.error(`${message}: ${errorText(err)}`);
  }

  /** Logs the error and shows it to the user with a "Show Log" button. */
  showError(message: string, err?: unknown): void {
    this.error(message, err);
    const text = err === undefined ? message : `${message}: ${errorMessage(err)}`;
    void vscode.window.showErrorMessage(text, 'Show Log').then((choice) => {
      if (choice === 'Show Log') void vscode.commands.executeCommand(COMMANDS.showLog);
    });
  }

  show(): void { this.channel.show(true); }

  dispose(): void { this.channel.dispose(); }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
