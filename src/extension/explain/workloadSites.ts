/**
 * The workspace's statements as one workload, for the index set the hover, the diagnostics and the
 * quick fixes share with `advise`: rebuilt only after the site index changed, so the explain service
 * chooses the set again only then (it keys its choice on this array).
 */
import type * as vscode from 'vscode';
import { workloadStatements, type WorkloadStatement } from '../../core/analysis/workloadAdvice';
import type { SiteIndex } from '../siteIndex';

export class WorkloadSites implements vscode.Disposable {
  private cached: readonly WorkloadStatement[] | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly index: SiteIndex) {
    this.subscription = index.onDidChange(() => { this.cached = undefined; });
  }

  /** The statements of every indexed site, the same array until the index changes. */
  readonly statements = (): readonly WorkloadStatement[] => {
    this.cached ??= workloadStatements(this.index.sites().map((s) => s.site));
    return this.cached;
  };

  dispose(): void { this.subscription.dispose(); }
}
