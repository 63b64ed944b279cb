/**
 * The one place where core's model meets VS Code's: 0-based core positions and ranges map
 * one-to-one onto vscode.Position / vscode.Range; findings become diagnostics with their stable code.
 */
import * as vscode from 'vscode';
import type { Finding, Position, Range, Severity } from '../core/model';

export function toVsPosition(p: Position): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

export function toVsRange(r: Range): vscode.Range {
  return new vscode.Range(toVsPosition(r.start), toVsPosition(r.end));
}

export function fromVsPosition(p: vscode.Position): Position {
  return { line: p.line, character: p.character };
}

export function fromVsRange(r: vscode.Range): Range {
  return { start: fromVsPosition(r.start), end: fromVsPosition(r.end) };
}

export function toVsSeverity(s: Severity): vscode.DiagnosticSeverity {
  switch (s) {
    case 'error': return vscode.DiagnosticSeverity.Error;
    case 'warning': return vscode.DiagnosticSeverity.Warning;
    case 'info': return vscode.DiagnosticSeverity.Information;
    case 'hint': return vscode.DiagnosticSeverity.Hint;
  }
}

/** Source shown beside every diagnostic the extension reports. */
export const DIAGNOSTIC_SOURCE = 'Query Insight';

/**
 * A finding as a diagnostic. `uriOf` turns a finding's workspace-relative `file` into a Uri (for
 * related locations such as the loop of an N+1).
 */
export function toDiagnostic(f: Finding, uriOf: (file: string) => vscode.Uri): vscode.Diagnostic {
  const d = new vscode.Diagnostic(toVsRange(f.range), f.message, toVsSeverity(f.severity));
  d.source = DIAGNOSTIC_SOURCE;
  d.code = f.code;
  if (f.related?.length) {
    d.relatedInformation = f.related.map((r) =>
      new vscode.DiagnosticRelatedInformation(new vscode.Location(uriOf(r.file), toVsRange(r.range)), r.message));
  }
  return d;
}
