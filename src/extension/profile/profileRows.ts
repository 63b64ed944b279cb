/**
 * The pure part of the CPU figures in the editor (no vscode import, unit-tested): the Endpoints
 * view's CPU column, the CodeLens over a handler (`CPU 23 % · 1.2 ms/req`), and which profiled
 * handler an endpoint of the access log belongs to.
 */
import type { EndpointCpu, ProfileReport } from '../../core/profile/cpuAttribution';
import { requestsByRoutes, type CountedEndpoint } from '../../core/profile/requestCounts';

/** A share for people: `23 %`, `4.5 %`, `0.3 %`. */
export function sharePct(x: number): string {
  const p = x * 100;
  return `${p >= 10 ? p.toFixed(0) : p.toFixed(1)} %`;
}

/** The profiled handler an access-log endpoint (method, route pattern) belongs to. */
export function cpuOfEndpoint(profile: Pick<ProfileReport, 'endpoints'> | undefined, method: string, uri: string): EndpointCpu | undefined {
  return profile?.endpoints.find((e) => e.routes.some((r) => r.pattern === uri && (r.method === 'ANY' || r.method === method)));
}

/** The Endpoints view's CPU column: `CPU 23 %` of the CPU under handlers. */
export function cpuCell(e: EndpointCpu): string {
  return `CPU ${sharePct(e.share)}`;
}

/** CPU milliseconds per request for people: `1.2 ms/req`, `0.04 ms/req`. */
export function msPerRequest(ms: number): string {
  return `${ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2)} ms/req`;
}

/** The CodeLens over a handler: `CPU 23 % · 1.2 ms/req` (the part after the share when requests are known). */
export function cpuLensTitle(e: EndpointCpu, requests: number | undefined): string {
  return requests ? `${cpuCell(e)} · ${msPerRequest((e.cpuSeconds * 1000) / requests)}` : cpuCell(e);
}

/**
 * The CPU lenses of one file: above each profiled handler defined in it (`line` 0-based), with CPU
 * per request when the access log counted the handler's routes.
 */
export function cpuLensesForFile(file: string, profile: Pick<ProfileReport, 'endpoints'> | undefined, access: readonly CountedEndpoint[] | undefined): { endpoint: EndpointCpu; line: number; title: string }[] {
  if (!profile) return [];
  return profile.endpoints.filter((e) => e.handler.file === file).map((e) => ({
    endpoint: e, line: e.handler.line - 1, title: cpuLensTitle(e, access ? requestsByRoutes(access, e.routes) : undefined),
  }));
}
