import fp from 'fastify-plugin';
import { counter, histogram, statusClass, type MetricsRegistry } from '@mmp/platform';

/**
 * Requests and their latency per route at the edge, by status class: what an operator
 * alerts on (5xx rate, p99 latency). The route is the registered pattern
 * (`/v1/payments/:id`), never the raw URL, so ids do not multiply the series;
 * requests that matched no route share `unmatched`.
 */
export const httpMetricsPlugin = fp<{ registry: MetricsRegistry }>(
  async (app, { registry }) => {
    const labels = ['method', 'route', 'status_class'] as const;
    const total = counter(
      registry,
      'mmp_http_requests_total',
      'HTTP requests answered by the gateway.',
      labels,
    );
    const seconds = histogram(
      registry,
      'mmp_http_request_duration_seconds',
      'Time the gateway took to answer an HTTP request.',
      labels,
    );
    app.addHook('onResponse', (request, reply, done) => {
      const series = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_class: statusClass(reply.statusCode),
      };
      total.inc(series);
      seconds.observe(series, reply.elapsedTime / 1000);
      done();
    });
  },
  { name: 'mmp-http-metrics', fastify: '5.x' },
);
