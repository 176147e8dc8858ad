// The Grafana dashboard and the alert rules beside the chart: well formed,
// and every metric they name is one zlake exports (or Node's process
// metrics from prom-client, or what Prometheus and kube-state-metrics add).

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { chartDir, parseYaml } from './tools';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

// The metrics zlake serve exports (docs/operations.md, src/service/metrics.ts).
const zlakeMetrics = new Set([
  'zlake_http_requests_total',
  'zlake_http_request_duration_seconds',
  'zlake_http_requests_in_flight',
  'zlake_query_duration_seconds',
  'zlake_queries_total',
  'zlake_loads_total',
  'zlake_commits_total',
  'zlake_commit_retries_total',
  'zlake_commit_conflicts_total',
  'zlake_storage_operation_duration_seconds',
  'zlake_storage_errors_total',
  'zlake_coord_operation_duration_seconds',
  'zlake_coord_errors_total',
  'zlake_event_subscribers',
  'zlake_scan_cache_hits_total',
  'zlake_scan_cache_misses_total',
]);
const otherMetrics = new Set([
  'up',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_p99_seconds',
  'kube_pod_container_resource_limits',
]);

/** The metric names in a PromQL expression (histogram series reduced to their metric). */
function metricsOf(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/\b((?:zlake|process|nodejs|kube)_[a-z0-9_]+|up)\s*[{[]/g)) {
    names.add(m[1].replace(/_(bucket|sum|count)$/, ''));
  }
  return [...names];
}

function balanced(expr: string): boolean {
  let depth = 0;
  for (const c of expr.replace(/"[^"]*"/g, '')) {
    if ('({['.includes(c)) depth++;
    if (')}]'.includes(c) && --depth < 0) return false;
  }
  return depth === 0;
}

function known(name: string): boolean {
  return zlakeMetrics.has(name) || otherMetrics.has(name);
}

describe('alerts/zlake-rules.yaml', () => {
  const rules = parseYaml(
    readFileSync(path.join(chartDir, 'alerts', 'zlake-rules.yaml'), 'utf8'),
  ) as Obj;
  const all = (rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]);

  test('is a Prometheus rule file of alerts with severities and summaries', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    for (const g of rules.groups as Obj[]) expect(g.name).toMatch(/^zlake\./);
    const names = all.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const r of all) {
      expect(r.alert).toMatch(/^Zlake[A-Za-z]+$/);
      expect(['info', 'warning', 'critical']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
      expect(r.for).toMatch(/^\d+[smh]$/);
      expect(balanced(r.expr)).toBe(true);
    }
  });

  test('names only metrics zlake exports', () => {
    const used = all.flatMap((r) => metricsOf(r.expr));
    expect(used.filter((m) => !known(m))).toEqual([]);
    expect(used).toEqual(
      expect.arrayContaining(['zlake_http_requests_total', 'zlake_storage_errors_total']),
    );
  });
});

describe('dashboards/zlake.json', () => {
  const dash = JSON.parse(
    readFileSync(path.join(chartDir, 'dashboards', 'zlake.json'), 'utf8'),
  ) as Obj;
  const panels = (dash.panels as Obj[]).filter((p) => p.type !== 'row');
  const exprs = panels.flatMap((p) => (p.targets as Obj[]).map((t) => t.expr as string));

  test('is a Grafana dashboard with a data source variable and laid-out panels', () => {
    expect(dash.uid).toBe('zlake-overview');
    expect(dash.templating.list.map((v: Obj) => v.name)).toEqual(['datasource', 'job']);
    const ids = (dash.panels as Obj[]).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dash.panels as Obj[]) {
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
    }
    for (const p of panels) {
      expect(p.datasource.uid).toBe('${datasource}');
      expect(p.targets.length).toBeGreaterThan(0);
    }
    for (const e of exprs) expect(balanced(e)).toBe(true);
  });

  test('names only metrics zlake exports and covers the main ones', () => {
    const used = new Set(exprs.flatMap(metricsOf));
    expect([...used].filter((m) => !known(m))).toEqual([]);
    for (const m of [
      'zlake_http_requests_total',
      'zlake_http_request_duration_seconds',
      'zlake_query_duration_seconds',
      'zlake_commits_total',
      'zlake_storage_operation_duration_seconds',
      'zlake_coord_operation_duration_seconds',
      'zlake_event_subscribers',
      'zlake_scan_cache_hits_total',
      'process_resident_memory_bytes',
    ]) {
      expect(used).toContain(m);
    }
  });
});
