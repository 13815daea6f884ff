import { LATENCY_BOUNDS } from '@/usage/latency';
import type { UsageRecorder } from '@/usage/recorder';
import type { Exposition } from '../metrics/exposition';

export { LATENCY_BOUNDS };

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The label of a path no route matches: unknown paths must not grow the series without bound. */
export const UNMATCHED = 'unmatched';

interface Node {
  literal: Map<string, Node>;
  param?: Node;
  /** The route template ending here, e.g. `/listings/properties/:id`. */
  template?: string;
}

/**
 * The group a route template is plotted in: its first segment (`/listings`,
 * `/auth`, …), the customer API's first two (`/api/v1`). Bounded like the
 * templates themselves.
 */
export function routeGroupOf(route: string): string {
  if (route === UNMATCHED) return UNMATCHED;
  const [, first = '', second = ''] = route.split('/');
  if (first === '') return '/';
  return first === 'api' && second !== '' ? `/api/${second}` : `/${first}`;
}

const newNode = (): Node => ({ literal: new Map() });

interface Series {
  method: string;
  route: string;
  /** Per bucket, not cumulative; the last is beyond the largest bound. */
  buckets: Float64Array;
  sum: number;
  statuses: Map<number, number>;
  /** `routeGroupOf(route)`, worked out once. */
  group: string;
}

/**
 * Requests by method, route template and status, with a latency histogram.
 * Fed by the one place the request log line is written (both lanes), so it
 * must stay cheap: a walk down a tree of path segments, a map lookup, and a
 * few increments; new objects only for a series not seen before.
 */
export class RequestMetrics {
  #root = newNode();
  /** Method → route template → its series: no key string is built per request. */
  readonly #series = new Map<string, Map<string, Series>>();
  /** The template of each path a fast route stands for (`observeRoute`). */
  #templates = new Map<string, string>();
  /** Where each request is also counted for the usage figures (absent in unit tests). */
  readonly #usage: UsageRecorder | undefined;

  constructor(usage?: UsageRecorder) {
    this.#usage = usage;
  }

  /** The service's routes (Elysia's `app.routes`); `:name` segments match any segment. */
  useRoutes(routes: readonly { method: string; path: string }[]): void {
    const root = newNode();
    for (const { path } of routes) {
      if (path.includes('*')) continue;
      let node = root;
      for (const segment of path.split('/')) {
        if (segment === '') continue;
        if (segment.startsWith(':')) node = node.param ??= newNode();
        else {
          const next = node.literal.get(segment) ?? newNode();
          node.literal.set(segment, next);
          node = next;
        }
      }
      node.template = path === '' ? '/' : path;
    }
    this.#root = root;
    this.#templates = new Map();
  }

  /** The route template of a path, or UNMATCHED. A literal segment wins over a parameter. */
  templateOf(path: string): string {
    let node: Node | undefined = this.#root;
    let start = 1;
    while (node && start <= path.length) {
      let end = path.indexOf('/', start);
      if (end === -1) end = path.length;
      if (end > start) {
        const segment = path.slice(start, end);
        node = node.literal.get(segment) ?? node.param;
      }
      start = end + 1;
    }
    return node?.template ?? UNMATCHED;
  }

  observe(method: string, path: string, status: number, durationMs: number | undefined): void {
    this.#record(method, this.templateOf(path), status, durationMs);
  }

  /**
   * As `observe`, for a request a fast route answered: `routePath` is a
   * fixed path of the same route template (`FastRoute.routePath`), so the
   * template is looked up once per route rather than walked per request.
   */
  observeRoute(method: string, routePath: string, status: number, durationMs: number): void {
    let route = this.#templates.get(routePath);
    if (route === undefined) {
      route = this.templateOf(routePath);
      this.#templates.set(routePath, route);
    }
    this.#record(method, route, status, durationMs);
  }

  #record(method: string, route: string, status: number, durationMs: number | undefined): void {
    const verb = METHODS.has(method) ? method : 'OTHER';
    let byRoute = this.#series.get(verb);
    if (!byRoute) {
      byRoute = new Map();
      this.#series.set(verb, byRoute);
    }
    let series = byRoute.get(route);
    if (!series) {
      series = {
        method: verb,
        route,
        buckets: new Float64Array(LATENCY_BOUNDS.length + 1),
        sum: 0,
        statuses: new Map(),
        group: routeGroupOf(route),
      };
      byRoute.set(route, series);
    }
    series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
    if (durationMs === undefined) {
      this.#usage?.observeRequest(series.group, status, -1);
      return;
    }
    const seconds = durationMs / 1000;
    let bucket = 0;
    while (bucket < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[bucket]!) bucket++;
    series.buckets[bucket]! += 1;
    series.sum += seconds;
    this.#usage?.observeRequest(series.group, status, bucket);
  }

  write(out: Exposition): void {
    out.family('http_requests_total', 'counter', 'Requests answered, by method, route and status.');
    for (const { method, route, statuses } of this.#allSeries()) {
      for (const [status, count] of statuses)
        out.sample('http_requests_total', { method, route, status }, count);
    }
    out.family(
      'http_request_duration_seconds',
      'histogram',
      'Time from the request reaching the service to its response being ready.',
    );
    for (const { method, route, buckets, sum } of this.#allSeries()) {
      out.histogram(
        'http_request_duration_seconds',
        { method, route },
        LATENCY_BOUNDS,
        buckets,
        sum,
      );
    }
  }

  *#allSeries(): Iterable<Series> {
    for (const byRoute of this.#series.values()) yield* byRoute.values();
  }
}
