import { ServiceCallError } from '@mmp/provider-kit';

/** How the service refused a provider-kit call: its status, code and body. Fails if it did not. */
export async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ServiceCallError))
    throw new Error(`expected a ServiceCallError, got ${String(error)}`);
  return { status: error.status, code: error.code, body: error.body as { error: Record<string, unknown> } };
}
