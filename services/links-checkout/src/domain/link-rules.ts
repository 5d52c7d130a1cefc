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
  deletedAt?: Date | null;
};

export function effectiveStatus(link: Pick<LinkTerms, 'status' | 'expiresAt'>, now: Date): LinkStatus {
  if (link.status === 'INACTIVE') return 'INACTIVE';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'EXPIRED';
  return 'ACTIVE';
}

export type Unusable = { code: 'link_inactive' | 'link_expired' | 'link_exhausted'; message: string };

/** A deleted (or vanished) link reads as switched off for good: its page is gone, its sessions are not. */
export const LINK_GONE: Unusable = {
  code: 'link_inactive',
  message: 'This payment link is no longer available.',
};

/**
 * Why a shopper cannot pay this link now, or null when they can. `held` counts the uses
 * that payments under way hold: at pay time they are taken, since each may still complete.
 */
export function whyUnusable(link: LinkTerms, now: Date, held = 0): Unusable | null {
  if (link.deletedAt) return LINK_GONE;
  const status = effectiveStatus(link, now);
  if (status === 'INACTIVE')
    return { code: 'link_inactive', message: 'This payment link has been deactivated by the merchant.' };
  if (status === 'EXPIRED') return { code: 'link_expired', message: 'This payment link has expired.' };
  if (link.maxUses !== null && link.usageCount >= link.maxUses) {
    return { code: 'link_exhausted', message: 'This payment link has reached its maximum number of uses.' };
  }
  if (link.maxUses !== null && link.usageCount + held >= link.maxUses) {
    return {
      code: 'link_exhausted',
      message: 'Every remaining use of this payment link is taken by a payment in progress; try again later.',
    };
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
    if (link.minAmount !== null)
      problems.push({
        field: 'minAmount',
        message: 'minAmount applies only to variable-amount links (amount null)',
      });
    if (link.maxAmount !== null)
      problems.push({
        field: 'maxAmount',
        message: 'maxAmount applies only to variable-amount links (amount null)',
      });
  } else if (link.minAmount !== null && link.maxAmount !== null && link.minAmount > link.maxAmount) {
    problems.push({ field: 'minAmount', message: 'minAmount must not exceed maxAmount' });
  }
  return problems;
}
