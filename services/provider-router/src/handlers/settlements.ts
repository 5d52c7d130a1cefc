import type { OperationHandler } from '@mmp/platform';
import type { settlementsApi } from '@mmp/protocol';
import type { RouterDeps } from '../use-cases/deps.js';
import { applySettlement } from '../use-cases/apply-settlement.js';

/** POST /v1/provider/webhooks/{providerId}: the exact bytes received and their signature. */
export function settlementHandler(deps: RouterDeps): OperationHandler<typeof settlementsApi.ingest> {
  return async (request, { requestId }) => ({
    status: 200,
    body: await applySettlement(
      deps,
      {
        providerId: request.params.providerId ?? '',
        rawBody: request.rawBody ?? '',
        signature: request.headers['x-service-signature'] ?? '',
      },
      requestId,
    ),
  });
}
