/**
 * Rules of a payment link, independent of storage. The merchant sets ACTIVE or INACTIVE;
 * EXPIRED follows from `expiresAt`, so it is computed on every read (the sweep only keeps
 * the stored value in line for list filters).
 */
export type LinkStatus = 'ACTIVE' | 'INACTIVE' | 'EXPIRED';

export type LinkTerms = {
  status: LinkStatus;
  expiresAt: Date | null;
  amount: number | null;
  minAmount: number | null;
  maxAmount: number | null;
  maxUses: number | null;
  usageCount: number;
};

export function effectiveStatus(link: Pick<LinkTerms, 'status' | 'expiresAt'>, now: Date): LinkStatus {
  if (link.status === 'INACTIVE') return 'INACTIVE';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'EXPIRED';
  return 'ACTIVE';
}

export type Unusable = { code: 'link_inactive' | 'link_expired' | 'link_exhausted'; message: string };

/** Why a shopper cannot pay this link now, or null when they can. */
export function whyUnusable(link: LinkTerms, now: Date): Unusable | null {
  const status = effectiveStatus(link, now);
  if (status === 'INACTIVE') return { code: 'link_inactive', message: 'This payment link has been deactivated by the merchant.' };
  if (status === 'EXPIRED') return { code: 'link_expired', message: 'This payment link has expired.' };
  if (link.maxUses !== null && link.usageCount >= link.maxUses) {
    return { code: 'link_exhausted', message: 'This payment link has reached its maximum number of uses.' };
  }
  return null;
}

export type AmountProblem = { message: string };

/**
 * The amount a shopper pays through a link: the fixed amount, or the one they typed
 * for a variable link, which must sit within the link's bounds and the global limits.
 */
export function chooseAmount(
  link: Pick<LinkTerms, 'amount' | 'minAmount' | 'maxAmount'>,
  offered: number | undefined,
  limits: { min: number; max: number },
): number | AmountProblem {
  if (link.amount !== null) return link.amount;
  if (offered === undefined) return { message: 'amount is required for a variable-amount link.' };
  const min = Math.max(limits.min, link.minAmount ?? limits.min);
  const max = Math.min(limits.max, link.maxAmount ?? limits.max);
  if (!Number.isInteger(offered) || offered < min || offered > max) {
    return { message: `amount must be a whole number between ${min} and ${max}.` };
  }
  return offered;
}

export type TermProblem = { field: string; message: string };

/** Consistency of a link's amount terms, checked on create and on the merged result of an update. */
export function termProblems(link: Pick<LinkTerms, 'amount' | 'minAmount' | 'maxAmount'>): TermProblem[] {
  const problems: TermProblem[] = [];
  if (link.amount !== null) {
    if (link.minAmount !== null) problems.push({ field: 'minAmount', message: 'minAmount applies only to variable-amount links (amount null)' });
    if (link.maxAmount !== null) problems.push({ field: 'maxAmount', message: 'maxAmount applies only to variable-amount links (amount null)' });
  } else if (link.minAmount !== null && link.maxAmount !== null && link.minAmount > link.maxAmount) {
    problems.push({ field: 'minAmount', message: 'minAmount must not exceed maxAmount' });
  }
  return problems;
}
