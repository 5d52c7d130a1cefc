import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerHealthCheck, pushSettlement, verifyServiceCall } from '@mmp/provider-kit';
import { startSystem, type RunningSystem } from './support/system.js';
import { SAMPLE_MAPPING } from './support/fixtures.js';
import { PULL_RAIL_ARGS, mmpAgainst } from './support/mmp.js';

/**
 * `mmp provider mapping get`, `mmp provider roll-signing-secret` and `mmp rails roll-secret`
 * against the whole system: each prints its result (JSON with --json), and a rolled secret
 * is the one the system verifies or signs with from then on.
 */
const scratch = mkdtempSync(join(tmpdir(), 'mmp-cli-secrets-'));
let system: RunningSystem;
const { mmp, mmpJson } = mmpAgainst(() => system);
let endpoint: Server;
let endpointUrl: string;
/** The health checks the rail endpoint received, as received. */
const checks: { rawBody: string; headers: Record<string, string | string[] | undefined> }[] = [];

beforeAll(async () => {
  system = await startSystem();
  // A provider's rail endpoint that answers every health check; the test judges the signature.
  endpoint = createServer((request, response) => {
    let rawBody = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (rawBody += chunk));
    request.on('end', () => {
      checks.push({ rawBody, headers: request.headers });
      const ack = answerHealthCheck(JSON.parse(rawBody) as { nonce: string });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ack));
    });
  });
  await new Promise<void>((done) => endpoint.listen(0, '127.0.0.1', done));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/mmp`;
}, 60_000);

afterAll(async () => {
  endpoint?.closeAllConnections();
  await new Promise((done) => endpoint?.close(done));
  await system?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const settlement = (key: string) => ({
  protocol_version: '1' as const,
  idempotency_key: key,
  transaction_ref: `ref_${key}`,
  amount: '5000',
  currency: 'XAF' as const,
  status: 'COMPLETED' as const,
  network: 'MTN_MOMO' as const,
  settled_at: '2025-01-31T12:00:00Z',
});

describe('mmp provider mapping get', () => {
  it('shows no mapping, then the mapping that was set, as JSON and for people', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'Mapping Co']);
    expect(await mmpJson(['provider', 'mapping', 'get', '--provider', provider.id])).toEqual({
      providerId: provider.id,
      mapping: null,
    });
    const none = await mmp(['provider', 'mapping', 'get', '--provider', provider.id]);
    expect(none.stdout).toContain(`${provider.id} has no mapping`);

    const mapping = SAMPLE_MAPPING;
    const file = join(scratch, 'mapping.json');
    writeFileSync(file, JSON.stringify(mapping));
    await mmpJson(['provider', 'mapping', 'set', '--provider', provider.id, '--file', file]);
    expect(await mmpJson(['provider', 'mapping', 'get', '--provider', provider.id])).toMatchObject({
      providerId: provider.id,
      mapping,
    });
    const human = await mmp(['provider', 'mapping', 'get', '--provider', provider.id]);
    expect(JSON.parse(human.stdout)).toMatchObject(mapping);

    const unknown = await mmp(['provider', 'mapping', 'get', '--provider', 'prv_unknown', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('resource_not_found');
  });
});

describe('mmp provider roll-signing-secret', () => {
  it('prints a new secret once; settlements signed with the old one are refused from then on', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'Rolling Settlements']);
    const push = (signingSecret: string, key: string) =>
      pushSettlement({
        baseUrl: `${system.baseUrl}/v1`,
        providerId: provider.id,
        signingSecret,
        event: settlement(key),
      });
    expect((await push(provider.signingSecret, 'pexec_cli_roll_before_000000')).status).toBe(200);

    const rolled = await mmpJson(['provider', 'roll-signing-secret', '--provider', provider.id]);
    expect(rolled).toMatchObject({ id: provider.id, signingSecret: expect.any(String) });
    expect(rolled.signingSecret).not.toBe(provider.signingSecret);
    expect(await push(provider.signingSecret, 'pexec_cli_roll_old_00000000')).toMatchObject({
      status: 403,
      body: { error: { code: 'signature_invalid' } },
    });
    expect((await push(rolled.signingSecret, 'pexec_cli_roll_new_00000000')).status).toBe(200);

    const human = await mmp(['provider', 'roll-signing-secret', '--provider', provider.id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(`^New signing secret of ${provider.id} \\(shown this once\\): \\S+`),
    );
    const listed = await mmp(['provider', 'list', '--json']);
    expect(listed.stdout).not.toContain(rolled.signingSecret);
  });
});

describe('mmp rails roll-secret', () => {
  it('prints a new whsec_ secret once, and the next rail test is signed with it', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'Rolling Rails']);
    const key = ['--provider-key', provider.apiKey];
    const rail = await mmpJson([
      'rails',
      'create',
      ...key,
      '--transport',
      'webhook',
      '--endpoint',
      endpointUrl,
      '--networks',
      'WAVE',
      '--countries',
      'SN',
      '--currencies',
      'XOF',
    ]);
    expect(rail.secret).toMatch(/^whsec_/);

    const rolled = await mmpJson(['rails', 'roll-secret', rail.id, ...key]);
    expect(rolled).toMatchObject({ id: rail.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rolled.secret).not.toBe(rail.secret);
    expect(rolled.secretHint).not.toBe(rail.secretHint);

    const before = checks.length;
    expect(await mmpJson(['rails', 'test', rail.id, ...key])).toMatchObject({ status: 'TESTED' });
    const [check] = checks.slice(before);
    const verify = (secret: string) => verifyServiceCall({ ...check!, secret }).ok;
    expect(verify(rolled.secret)).toBe(true);
    expect(verify(rail.secret)).toBe(false);

    const listed = await mmp(['rails', 'list', '--json', ...key]);
    expect(listed.stdout).not.toContain(rolled.secret);
    const human = await mmp(['rails', 'roll-secret', rail.id], { MMP_PROVIDER_KEY: provider.apiKey });
    expect(human.stdout).toMatch(
      new RegExp(`^New webhook secret of rail ${rail.id} \\(shown this once\\): whsec_`),
    );
  });

  it('refuses a pull rail, which has no secret, with invalid_state and a non-zero exit', async () => {
    const provider = await mmpJson(['provider', 'create', '--name', 'Pulling Rails']);
    const key = ['--provider-key', provider.apiKey];
    const rail = await mmpJson(['rails', 'create', ...key, ...PULL_RAIL_ARGS]);
    const refused = await mmp(['rails', 'roll-secret', rail.id, ...key, '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_state');
  });
});
