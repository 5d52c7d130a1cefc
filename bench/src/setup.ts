import type autocannon from 'autocannon';
import { paymentBody } from './scenarios.js';

/** Creates the payments the retrieve scenario reads, a few at a time, outside the measurement. */
export async function createPayments(baseUrl: string, secretKey: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const sequence = ++next;
      const response = await fetch(`${baseUrl}/v1/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
        body: paymentBody('seed', sequence),
      });
      const text = await response.text();
      if (response.status !== 201)
        throw new Error(`seeding payment ${sequence}: ${response.status} ${text.slice(0, 300)}`);
      tokens.push((JSON.parse(text) as { token: string }).token);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tokens;
}

/**
 * Sends one request of a scenario and insists on a 2xx, so a broken route fails loudly
 * with its answer instead of being measured as a fast flood of errors.
 */
export async function probe(url: string, request: autocannon.Request): Promise<void> {
  const method = request.method ?? 'GET';
  const response = await fetch(new URL(request.path ?? '/', url), {
    method,
    headers: request.headers as Record<string, string> | undefined,
    body: typeof request.body === 'string' ? request.body : undefined,
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(`probe ${method} ${request.path}: ${response.status} ${text.slice(0, 300)}`);
}

async function admin<T>(baseUrl: string, adminToken: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export type BenchAccounts = {
  projectId: string;
  testSecretKey: string;
  provider: { id: string; signingSecret: string } | { error: string };
};

/** A merchant project with its test secret key, and a provider that posts settlements. */
export async function createAccounts(baseUrl: string, adminToken: string): Promise<BenchAccounts> {
  const project = await admin<{ id: string; keys: { kind: string; livemode: boolean; key: string }[] }>(
    baseUrl,
    adminToken,
    '/v1/admin/projects',
    { name: 'bench', displayName: 'Bench Shop' },
  );
  const testSecretKey = project.keys.find((k) => k.kind === 'secret' && !k.livemode)?.key;
  if (!testSecretKey) throw new Error('the new project has no test secret key');
  const provider = await admin<{ id: string; signingSecret: string }>(
    baseUrl,
    adminToken,
    '/v1/admin/providers',
    {
      name: 'Bench Provider',
    },
  )
    .then(({ id, signingSecret }) => ({ id, signingSecret }))
    .catch((error: unknown) => ({ error: String(error) }));
  return { projectId: project.id, testSecretKey, provider };
}
