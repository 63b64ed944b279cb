/** Composition root of the VS Code extension: builds the services and registers every provider. */
import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  void context;
}

export function deactivate(): void {}
