import { PodMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { OPS_PATHS } from '@mmp/platform';

/**
 * For clusters with the Prometheus Operator (its CRDs): a PodMonitor scraping every
 * service's ops port, and the alerts that matter. Kept out of the overlays so that a
 * cluster without the operator can still apply them.
 */
type Alert = { alert: string; expr: string; for: string; severity: 'page' | 'ticket'; summary: string };

export const ALERTS: readonly Alert[] = [
  {
    alert: 'MmpOutboxBacklog',
    expr: 'max by (namespace, service, collection) (mmp_outbox_unpublished_events) > 0',
    for: '10m',
    severity: 'page',
    summary:
      'Events written with their state change are not reaching NATS: consumers (customers, webhooks, routing) fall behind.',
  },
  {
    alert: 'MmpOutboxRelayFailing',
    expr: 'sum by (namespace, service) (increase(mmp_outbox_relay_failures_total[10m])) > 0',
    for: '10m',
    severity: 'ticket',
    summary: 'The outbox relay keeps failing to publish; see the service logs.',
  },
  {
    alert: 'MmpConsumerLag',
    // From the NATS chart's exporter (deploy/stateful/nats/values.yaml: promExporter).
    expr: 'max by (namespace, stream_name, consumer_name) (jetstream_consumer_num_pending{stream_name=~".*EVENTS"}) > 1000',
    for: '10m',
    severity: 'page',
    summary: 'A durable consumer of the EVENTS stream is more than 1000 events behind.',
  },
  {
    alert: 'MmpEventHandlingFailing',
    expr: 'sum by (namespace, service, consumer) (rate(mmp_events_handled_total{outcome=~"failed|retry"}[10m])) > 0.1',
    for: '15m',
    severity: 'ticket',
    summary: 'Events are retried or given up by a consumer; redeliveries keep the lag growing.',
  },
  {
    alert: 'MmpMerchantWebhooksGivenUp',
    expr: 'sum by (namespace) (increase(mmp_webhook_deliveries_total{outcome="failed"}[30m])) > 0',
    for: '0m',
    severity: 'ticket',
    summary: 'Merchant webhooks were given up after their whole retry schedule.',
  },
  {
    alert: 'MmpProviderDeliveriesFailing',
    // The failures that open a rail's circuit breaker (BREAKER_FAILURES in BREAKER_WINDOW_MS).
    expr: 'sum by (namespace, classification) (increase(mmp_order_delivery_attempts_total{classification=~"TIMEOUT|UNREACHABLE|HTTP_ERROR|BAD_ACK"}[10m])) > 3',
    for: '5m',
    severity: 'page',
    summary: 'Orders are failing to reach providers: rails’ breakers open and payments fail over or fail.',
  },
  {
    alert: 'MmpOrdersExpiring',
    expr: 'sum by (namespace) (increase(mmp_order_deliveries_total{outcome="EXPIRED"}[30m])) > 5',
    for: '0m',
    severity: 'ticket',
    summary: 'Orders expire without a provider answer (pull providers not pulling?).',
  },
  {
    alert: 'MmpNatsDisconnected',
    expr: 'max_over_time(mmp_nats_connected[2m]) == 0',
    for: '1m',
    severity: 'page',
    summary: 'A service has been disconnected from NATS for over a minute (it is not ready meanwhile).',
  },
  {
    alert: 'MmpPeerUnavailable',
    expr: 'sum by (namespace, service, target) (rate(mmp_calls_total{outcome="unavailable"}[5m])) > 0.05',
    for: '5m',
    severity: 'page',
    summary: 'Calls to another service get no answer in time (REQUEST_TIMEOUT_MS).',
  },
  {
    alert: 'MmpApiErrors',
    expr:
      'sum by (namespace) (rate(mmp_http_requests_total{status_class="5xx"}[5m])) / ' +
      'sum by (namespace) (rate(mmp_http_requests_total[5m])) > 0.01',
    for: '10m',
    severity: 'page',
    summary: 'More than 1 % of API requests answer 5xx.',
  },
  {
    alert: 'MmpLoopFailing',
    expr: 'sum by (namespace, service, loop) (increase(mmp_loop_runs_total{outcome="error"}[15m])) > 3',
    for: '0m',
    severity: 'ticket',
    summary: 'A background loop (expiry, webhook sender, sweep, recovery, relay) keeps failing.',
  },
];

export function monitoringFiles(): Map<string, object[]> {
  return new Map<string, object[]>([
    [
      'pod-monitor.yaml',
      [
        new PodMonitor({
          metadata: { name: 'mmp', labels: { 'app.kubernetes.io/part-of': 'mmp' } },
          spec: {
            selector: { matchLabels: { 'app.kubernetes.io/part-of': 'mmp' } },
            podMetricsEndpoints: [{ port: 'ops', path: OPS_PATHS.metrics, interval: '30s' }],
          },
        }),
      ],
    ],
    [
      'prometheus-rules.yaml',
      [
        new PrometheusRule({
          metadata: { name: 'mmp', labels: { 'app.kubernetes.io/part-of': 'mmp' } },
          spec: {
            groups: [
              {
                name: 'mmp',
                rules: ALERTS.map(({ alert, expr, for: duration, severity, summary }) => ({
                  alert,
                  expr,
                  for: duration,
                  labels: { severity },
                  annotations: { summary },
                })),
              },
            ],
          },
        }),
      ],
    ],
    [
      'kustomization.yaml',
      [
        {
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['pod-monitor.yaml', 'prometheus-rules.yaml'],
        },
      ],
    ],
  ]);
}
