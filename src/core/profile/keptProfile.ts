/**
 * A CPU profile as it is kept with a run record (`profile` in `.query-insight/runs/<id>.json`) and in
 * the editor: the per-endpoint figures, flame graphs included, and where the profile came from.
 */
import type { ProfileReport } from './cpuAttribution';

export type KeptProfile = Pick<ProfileReport, 'totalSeconds' | 'handlerSeconds' | 'endpoints' | 'buckets'> & {
  /** The profile as the user named it (a file, a URL). */
  source: string;
  /** ISO 8601. */
  importedAt: string;
};

/** The part of a report that is kept, with its source. */
export function keepProfile(report: ProfileReport, source: string, importedAt: Date = new Date()): KeptProfile {
  return { source, importedAt: importedAt.toISOString(), totalSeconds: report.totalSeconds, handlerSeconds: report.handlerSeconds, endpoints: report.endpoints, buckets: report.buckets };
}

/** True when `v` has the shape of a kept profile (numbers where figures are, lists of endpoints and buckets). */
export function isKeptProfile(v: unknown): v is KeptProfile {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  return typeof p.source === 'string' && typeof p.importedAt === 'string' && num(p.totalSeconds) && num(p.handlerSeconds)
    && Array.isArray(p.buckets) && Array.isArray(p.endpoints)
    && (p.endpoints as unknown[]).every((e) => {
      const x = e as Record<string, unknown> | null;
      return !!x && typeof x.endpoint === 'string' && num(x.cpuSeconds) && num(x.share) && Array.isArray(x.routes)
        && typeof x.handler === 'object' && x.handler !== null && typeof (x.handler as { file?: unknown }).file === 'string';
    });
}
