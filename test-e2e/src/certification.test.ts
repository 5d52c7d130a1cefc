import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, makeTestCertificate } from '@mmp/platform/testing';
import { sandboxOperations } from '@mmp/protocol';
import { startExampleAdapter } from '../../packages/provider-kit/examples/webhook-adapter.js';
import { api } from './support/http.js';
import { providerBus, type ProviderBus } from './support/provider-bus.js';
import { payOnHostedPage } from './support/shopper.js';
import { newProvider, webhookRailOnFreePort } from './support/rails.js';
import { startSystem, type ProjectKeys, type RunningSystem } from './support/system.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Certification against the real system (issue 13): the sandbox provider's pull rail and the
 * kit's example adapter on a webhook rail pass every case (17 of 17 with payouts on the webhook rail); the passing full run certifies
 * the channel, which lets a live rail on it activate (refused before, with the reason) and
 * carry a live payment to completion through an adapter on loopback HTTPS. Along the way:
 * the run followed live as Server-Sent Events, its JUnit report read by an XML parser and its
 * JSON report checked against the OpenAPI document's schema.
 */
const certificate = makeTestCertificate();
let system: RunningSystem;
let bus: ProviderBus;
let project: ProjectKeys;
const adapters: { close(): Promise<void> }[] = [];

/** Delivery gives up quickly, so cases 9 to 11 take seconds, not the production half minute. */
const FAST = {
  DELIVERY_TIMEOUT_MS: '1500',
  DELIVERY_BACKOFF_MS: '100',
  DELIVERY_MAX_ATTEMPTS: '2',
  ORDER_EXPIRY_INTERVAL_MS: '300',
  CERTIFICATION_SETTLEMENT_WAIT_MS: '10000',
  CERTIFICATION_DELIVERY_WAIT_MS: '15000',
  CERTIFICATION_DUPLICATE_GRACE_MS: '500',
};

beforeAll(async () => {
  system = await startSystem({
    external: ['provider-router', 'provider-delivery', 'sandbox-provider'],
    env: FAST,
  });
  // The live adapter serves HTTPS with this run's certificate: the services calling it trust it.
  for (const name of ['provider-router', 'provider-delivery'] as const)
    await system.spawnService(name, { NODE_EXTRA_CA_CERTS: certificate.certPath }).waitReady();
  await system.spawnService('sandbox-provider').waitReady();
  bus = await providerBus(system, 'certification-e2e');
  project = await system.createProject('Certified Shop');
}, 90_000);

afterAll(async () => {
  await Promise.all(adapters.map((adapter) => adapter.close()));
  await bus?.close();
  await system?.stop();
  certificate.remove();
});

type CaseView = { number: number; status: string; observed: string | null; latencyMs: number | null };
type RunView = {
  id: string;
  status: string;
  kind: string;
  channel: Record<string, string>;
  badge: string | null;
  summary: { total: number; passed: number; failed: number };
  cases: CaseView[];
};

/** The cases that did not pass, with what was observed, for a readable failure. */
const failures = (run: RunView) =>
  run.cases.filter((entry) => entry.status !== 'PASSED').map((entry) => `${entry.number}: ${entry.observed}`);

async function finished(read: () => Promise<{ body: RunView }>): Promise<RunView> {
  return eventually(async () => {
    const { body } = await read();
    return body.status === 'RUNNING' ? undefined : body;
  }, 60_000);
}

/** Reads a Server-Sent Events stream to its end: each event's name and parsed data. */
async function followEvents(url: string, apiKey: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const name = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      return { name, data: JSON.parse(data ?? 'null') as Record<string, unknown> };
    });
}

const CHANNEL = { networks: ['ORANGE_MONEY'], countries: ['CM'], currencies: ['XAF'] };

describe('certification of the sandbox provider (pull rail)', () => {
  it('passes every case (12, or 17 when its rail supports payouts) and certifies its channel', async () => {
    const sandbox = await eventually(async () => {
      const status = await bus.as('gateway').request(sandboxOperations.status, {});
      return status.registered ? status : undefined;
    }, 30_000);
    const base = `/v1/admin/providers/${sandbox.providerId}`;
    const sandboxRail = await system.admin<{ supportsPayout: boolean }>(
      'GET',
      `${base}/rails/${sandbox.railId}`,
    );
    const total = sandboxRail.supportsPayout ? 17 : 12;
    const started = await system.admin<RunView>(
      'POST',
      `${base}/rails/${sandbox.railId}/certification-runs`,
      {},
    );
    expect(started).toMatchObject({ status: 'RUNNING', kind: 'full', summary: { total } });
    const run = await finished(async () => ({
      body: await system.admin<RunView>('GET', `${base}/certification-runs/${started.id}`),
    }));
    expect(failures(run)).toEqual([]);
    expect(run).toMatchObject({
      status: 'PASSED',
      badge: 'CERTIFIED',
      summary: { passed: total, failed: 0 },
    });
    // provider-router follows the badge event: the rail and the provider show the channel's badge.
    const badge = [{ network: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' }];
    expect(run).toMatchObject({ channel: badge[0] });
    await eventually(async () => {
      const rail = await system.admin<{ certifiedChannels: unknown[] }>(
        'GET',
        `${base}/rails/${sandbox.railId}`,
      );
      return JSON.stringify(rail.certifiedChannels) === JSON.stringify(badge);
    }, 10_000);
    const providers = await system.admin<{ data: { id: string; certifiedChannels: unknown[] }[] }>(
      'GET',
      '/v1/admin/providers',
    );
    expect(providers.data.find((entry) => entry.id === sandbox.providerId)?.certifiedChannels).toEqual(badge);
  }, 90_000);
});

describe("certification of the kit's example adapter (webhook rail), then live traffic", () => {
  it('passes 17 of 17 (payouts included) followed live, reports as JUnit and JSON, certifies, and a live rail then carries a live payment', async () => {
    const provider = await newProvider(system, 'Certified Co');
    const { portal } = provider;
    const adapterFor = async (
      rail: { secret: string },
      port: number,
      tls?: { cert: Buffer; key: Buffer },
    ) => {
      const adapter = await startExampleAdapter({
        railSecret: rail.secret,
        providerId: provider.id,
        signingSecret: provider.signingSecret,
        serviceUrl: system.baseUrl,
        port,
        tls,
        executionDelayMs: 100,
        log: () => undefined,
      });
      adapters.push(adapter);
      return adapter;
    };

    // A live rail first: tested, but its channel is not certified, so it may not activate.
    const live = await webhookRailOnFreePort(portal, CHANNEL, { environment: 'live', scheme: 'https' });
    await adapterFor(live, live.port, { cert: certificate.cert, key: certificate.key });
    expect((await portal('POST', `/v1/provider/rails/${live.id}/test`)).body).toMatchObject({
      status: 'TESTED',
      certified: false,
    });
    const refused = await portal<{ error: { code: string; message: string } }>(
      'POST',
      `/v1/provider/rails/${live.id}/activate`,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');
    expect(refused.body.error.message).toContain('Not certified: ORANGE_MONEY CM XAF');

    // The sandbox rail the certification runs on; it executes payouts too, so 17 cases.
    const rail = await webhookRailOnFreePort(portal, { supportsPayout: true, ...CHANNEL });
    await adapterFor(rail, rail.port);
    expect((await portal('POST', `/v1/provider/rails/${rail.id}/test`)).body).toMatchObject({
      status: 'TESTED',
    });

    const started = await portal<RunView>('POST', `/v1/provider/rails/${rail.id}/certification-runs`);
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'RUNNING', summary: { total: 17 } });
    const again = await portal<{ error: { code: string } }>(
      'POST',
      `/v1/provider/rails/${rail.id}/certification-runs`,
    );
    expect(again.status).toBe(409);

    const events = await followEvents(
      `${system.baseUrl}/v1/provider/certification-runs/${started.body.id}/events`,
      provider.apiKey,
    );
    const cases = events.filter((event) => event.name === 'case');
    expect(cases.map((event) => event.data.number).sort((a, b) => Number(a) - Number(b))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
    ]);
    expect(events.at(-1)?.name).toBe('run');

    const run = (await portal<RunView>('GET', `/v1/provider/certification-runs/${started.body.id}`)).body;
    expect(failures(run)).toEqual([]);
    expect(run).toMatchObject({ status: 'PASSED', badge: 'CERTIFIED', summary: { passed: 17 } });
    const runText = JSON.stringify(run);
    expect(runText).not.toContain(rail.secret);
    expect(runText).not.toContain(provider.signingSecret);
    expect(runText).not.toContain(provider.apiKey);

    // JUnit XML, read by a parser: one testcase per case, none failed.
    const junit = await fetch(`${system.baseUrl}/v1/provider/certification-runs/${started.body.id}/junit`, {
      headers: { authorization: `Bearer ${provider.apiKey}` },
    });
    expect(junit.headers.get('content-type')).toContain('xml');
    const xml = await junit.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testcase' }).parse(
      xml,
    ) as {
      testsuites: {
        testsuite: { '@_tests': string; '@_failures': string; testcase: { failure?: unknown }[] };
      };
    };
    expect(parsed.testsuites.testsuite['@_tests']).toBe('17');
    expect(parsed.testsuites.testsuite['@_failures']).toBe('0');
    expect(parsed.testsuites.testsuite.testcase.filter((testcase) => testcase.failure)).toEqual([]);

    // The JSON report matches the schema the OpenAPI document publishes for it.
    const report = await portal('GET', `/v1/provider/certification-runs/${started.body.id}/report`);
    const openapi = (await api(system.baseUrl)('GET', '/v1/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>
      >;
    };
    const schema =
      openapi.paths['/v1/provider/certification-runs/{runId}/report']!.get!.responses['200']!.content[
        'application/json'
      ]!.schema;
    const validate = addFormats(new Ajv2020({ strict: false })).compile(schema);
    expect(validate(report.body), JSON.stringify(validate.errors)).toBe(true);

    // A single-case re-run: its own run, which never decides the badge.
    const rerun = await portal<RunView>(
      'POST',
      `/v1/provider/certification-runs/${started.body.id}/cases/12/rerun`,
    );
    expect(rerun.status).toBe(202);
    const single = await finished(() =>
      portal<RunView>('GET', `/v1/provider/certification-runs/${rerun.body.id}`),
    );
    expect(single).toMatchObject({ kind: 'single', status: 'PASSED', badge: null, summary: { total: 1 } });
    const listed = await portal<{ data: RunView[] }>(
      'GET',
      `/v1/provider/rails/${rail.id}/certification-runs`,
    );
    expect(listed.body.data.map((entry) => entry.id)).toEqual([rerun.body.id, started.body.id]);

    // The channel is certified: the live rail carries the badge, activates, and takes a live payment.
    await eventually(async () => {
      const view = await portal<{ certified: boolean }>('GET', `/v1/provider/rails/${live.id}`);
      return view.body.certified;
    }, 10_000);
    expect((await portal('POST', `/v1/provider/rails/${live.id}/activate`)).body).toMatchObject({
      status: 'ACTIVE',
      certified: true,
      certifiedChannels: [{ network: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' }],
    });
    expect((await portal('GET', '/v1/provider/profile')).body).toMatchObject({
      certifiedChannels: [{ network: 'ORANGE_MONEY', country: 'CM', currency: 'XAF' }],
    });
    const merchant = api(system.baseUrl, project.liveSecretKey);
    const payment = await merchant<{ token: string; paymentUrl: string }>('POST', '/v1/payments', {
      amount: 5000,
      currency: 'XAF',
    });
    expect(payment.status).toBe(201);
    await payOnHostedPage(system.baseUrl, payment.body, '+237690000001', 'ORANGE_MONEY');
    await eventually(async () => {
      const { body } = await merchant<{ status: string }>('GET', `/v1/payments/${payment.body.token}`);
      return body.status === 'COMPLETED';
    }, 20_000);
  }, 120_000);
});
