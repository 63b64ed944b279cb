/**
 * How a feature plugs into the extension: a `Feature` is a function of the extension context and the
 * shared services that registers its commands, views and providers (every disposable into
 * `context.subscriptions`); extension.ts lists them all. Commands go through `command()`, the one
 * guard (ESLint refuses `registerCommand` elsewhere): a failure is logged and shown once with
 * "Show Log", and a cancellation by the user is silent.
 */
import * as vscode from 'vscode';
import type { CommandId } from './commands';
import type { Services } from './extension';
import type { Logger } from './logger';

/** What every feature gets. */
export interface FeatureContext {
  readonly context: vscode.ExtensionContext;
  readonly services: Services;
}

/** A feature: registers what it contributes; what other features need goes through `services`. */
export type Feature = (ctx: FeatureContext) => void;

/** Error names that mean "the user (or a newer request) cancelled", whatever layer threw them. */
const CANCELLED_NAMES = new Set(['AbortError', 'Canceled', 'CancellationError', 'VerifyCancelled']);

/** True when an error only says the operation was cancelled: nothing to report. */
export function isCancellation(err: unknown): boolean {
  if (err instanceof vscode.CancellationError) return true;
  return err instanceof Error && CANCELLED_NAMES.has(err.name);
}

/**
 * Registers a command behind the one guard: `failure` heads the error shown when `fn` throws
 * (e.g. "Could not import the slow query log"); a cancellation returns undefined silently.
 */
export function command<A extends unknown[], R>(
  logger: Logger, id: CommandId, failure: string, fn: (...args: A) => R | Promise<R>,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: A): Promise<R | undefined> => {
    try {
      return await fn(...args);
    } catch (err) {
      if (isCancellation(err)) { logger.info(`${id}: cancelled`); return undefined; }
      logger.showError(`Query Insight: ${failure}`, err);
      return undefined;
    }
  });
}
