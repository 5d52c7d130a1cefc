/**
 * A merchant's client as the API reference tells merchants to write it: a request that
 * fails (no answer, 5xx, 409 "still being processed") is sent again with the same
 * Idempotency-Key and the same body, with backoff, until it gets a final answer.
 */
export type Attempt = { startedAt: number; endedAt: number; status: number; code?: string };

export type Exchange = { status: number; body: Record<string, unknown>; attempts: Attempt[] };

/** Final answers: anything else (no answer, 5xx, 409 "still being processed", 429) is worth retrying. */
function final(status: number, code: string | undefined) {
  if (status === 0 || status >= 500 || status === 429) return false;
  return !(status === 409 && code === 'idempotency_conflict');
}

export async function sendWithRetries(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  options: {
    deadlineMs?: number;
    timeoutMs?: number;
    stopAt?: (status: number, code?: string) => boolean;
  } = {},
): Promise<Exchange> {
  const deadline = Date.now() + (options.deadlineMs ?? 90_000);
  const attempts: Attempt[] = [];
  let wait = 100;
  for (;;) {
    const startedAt = Date.now();
    let status = 0;
    let body: Record<string, unknown> = {};
    try {
      const response = await fetch(url, {
        ...init,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      status = response.status;
      const text = await response.text();
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { text };
      }
    } catch {
      // refused, reset or timed out: the merchant does not know, so it retries
    }
    const code = typeof body.code === 'string' ? body.code : undefined;
    attempts.push({ startedAt, endedAt: Date.now(), status, code });
    if (final(status, code) || options.stopAt?.(status, code) || Date.now() > deadline)
      return { status, body, attempts };
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(2000, wait * 1.5);
  }
}
