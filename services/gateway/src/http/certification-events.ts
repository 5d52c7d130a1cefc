import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { BusClient } from '@mmp/platform';
import { CertificationRunView, certificationApi, isAppError } from '@mmp/protocol';
import { actorOf } from './guard.js';
import type { LocalRoute } from './local-route.js';

const POLL_MS = 250;

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Follow a run live as Server-Sent Events: one `case` event per finished case (with its
 * evidence), then one `run` event with the verdict, then the stream ends. The gateway reads
 * the run from certification-runner until it ends, so any gateway replica can serve it.
 */
export function certificationEventsRoute(bus: BusClient): LocalRoute {
  return {
    method: 'GET',
    url: '/v1/provider/certification-runs/:runId/events',
    auth: 'provider',
    errorForm: 'envelope',
    tag: 'Provider certification',
    summary:
      'Follow a certification run live (text/event-stream): `event: case` once per finished case, then `event: run` with the verdict',
    schema: { params: z.object({ runId: z.string() }) },
    responses: { 200: z.string().describe('text/event-stream') },
    async handler(request, reply) {
      const actor = actorOf(request);
      const read = () =>
        bus.request(
          certificationApi.get,
          { params: request.params as Record<string, string>, query: {}, headers: {} },
          { requestId: request.id, actor },
        );
      // The first read answers an unknown or foreign run with its error, before the stream opens.
      let run = CertificationRunView.parse((await read()).body);
      reply.hijack();
      const stream = reply.raw;
      stream.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      let closed = false;
      stream.on('close', () => (closed = true));
      const sent = new Set<number>();
      for (;;) {
        for (const result of run.cases) {
          if (result.finishedAt && !sent.has(result.number)) {
            sent.add(result.number);
            stream.write(sse('case', { runId: run.id, ...result }));
          }
        }
        if (run.status !== 'RUNNING') {
          const { cases: _cases, ...verdict } = run;
          stream.end(sse('run', verdict));
          return;
        }
        if (closed) return;
        await sleep(POLL_MS);
        try {
          run = CertificationRunView.parse((await read()).body);
        } catch (error) {
          stream.end(
            sse('error', { message: isAppError(error) ? error.message : 'the run could not be read' }),
          );
          return;
        }
      }
    },
  };
}
