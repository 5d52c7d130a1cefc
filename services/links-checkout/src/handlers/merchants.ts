import type { ServiceClient } from '@mmp/platform';

export type Merchant = { name: string; logo: string | null };

export type MerchantDirectory = { get(projectId: string): Promise<Merchant> };

type ProjectInfo = { id: string; name: string; displayName: string | null; logoUrl: string | null };

/**
 * Merchant name and logo come from the gateway, which owns projects. Pages ask on every
 * view, so answers are kept briefly; a stale answer beats failing a payer's page.
 */
export function createMerchantDirectory(
  services: ServiceClient,
  ttlMs = 30_000,
  now = () => Date.now(),
): MerchantDirectory {
  const cache = new Map<string, { merchant: Merchant; at: number }>();
  return {
    async get(projectId) {
      const hit = cache.get(projectId);
      if (hit && now() - hit.at < ttlMs) return hit.merchant;
      try {
        const project = await services.command<ProjectInfo>('gateway', 'projects.get', { projectId });
        const merchant = { name: project.displayName || project.name, logo: project.logoUrl ?? null };
        if (cache.size > 10_000) cache.clear();
        cache.set(projectId, { merchant, at: now() });
        return merchant;
      } catch (error) {
        if (hit) return hit.merchant;
        throw error;
      }
    },
  };
}
