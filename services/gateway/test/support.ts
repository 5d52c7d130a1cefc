import {
  connectNats,
  createLogger,
  serveOperations,
  startService,
  type NatsConnection,
  type Operation,
  type RunningService,
} from '@mmp/platform';
import { captureLogs, createTestSystem } from '@mmp/platform/testing';
import type { ServiceName } from '@mmp/protocol';
import { createGatewayService, gatewayUrl } from '../src/service.js';
import type { ForwardedRoute } from '../src/routes/route.js';

export const ADMIN_TOKEN = 'adm_test_token_0123456789abcdef';

export type HttpResult = {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  json: any;
};

/** A gateway started in-process on a random port, with its own NATS prefix and data folder. */
export async function startTestGateway(options: {
  routes: ForwardedRoute[];
  env?: Record<string, string>;
  label?: string;
}) {
  const system = createTestSystem(options.label ?? 'gw');
  const logs = captureLogs();
  const running = (await startService(
    createGatewayService({ routes: options.routes }),
    { ...system.env, ADMIN_TOKEN, GATEWAY_PORT: '0', LOG_LEVEL: 'debug', ...options.env },
    { logDestination: logs.stream },
  )) as RunningService;
  const nc = await connectNats({
    url: system.env.NATS_URL!,
    name: 'test-responders',
    log: createLogger({ service: 'test', level: 'silent' }),
  });
  const url = gatewayUrl(running);
  const responders: { stop(): Promise<unknown> }[] = [];
  return {
    system,
    running,
    url,
    logs,
    /** Serves fake operations of `service` on this system's prefix. */
    async serve(service: ServiceName, operations: Record<string, Operation>) {
      responders.push(
        await serveOperations({
          nc: nc as NatsConnection,
          naming: system.naming,
          service,
          version: '0.0.1',
          log: createLogger({ service: `fake-${service}`, level: 'silent' }),
          operations,
        }),
      );
    },
    async http(
      method: string,
      path: string,
      init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
    ): Promise<HttpResult> {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      let body: string | undefined = init.raw;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${path}`, { method, headers, body });
      const text = await response.text();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
      let json: any = undefined;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, text, json };
    },
    async admin(method: string, path: string, body?: unknown): Promise<HttpResult> {
      return this.http(method, path, { token: ADMIN_TOKEN, body });
    },
    async stop() {
      for (const responder of responders) await responder.stop();
      await nc.drain();
      await running.stop();
      await system.cleanup();
    },
  };
}
export type TestGateway = Awaited<ReturnType<typeof startTestGateway>>;

/** Creates a project through the admin API; returns it with its keys by environment and kind. */
export async function createProject(gateway: TestGateway, name = 'Shop') {
  const response = await gateway.admin('POST', '/v1/admin/projects', { name });
  if (response.status !== 201) throw new Error(`project create failed: ${response.status} ${response.text}`);
  const project = response.json as {
    id: string;
    keys: { id: string; kind: string; livemode: boolean; key: string; scopes: string[] }[];
  };
  const key = (livemode: boolean, kind: string) =>
    project.keys.find((k) => k.livemode === livemode && k.kind === kind)!;
  return {
    id: project.id,
    keys: project.keys,
    testSecret: key(false, 'secret'),
    liveSecret: key(true, 'secret'),
    testPublishable: key(false, 'publishable'),
    livePublishable: key(true, 'publishable'),
  };
}
