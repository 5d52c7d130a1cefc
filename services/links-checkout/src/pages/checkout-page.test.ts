import { describe, expect, it } from 'vitest';
import { renderCheckoutPage, type CheckoutView } from './checkout-page.js';
import { pagePhonePlan } from '../domain/phone-plan.js';

const view = (over: Partial<CheckoutView>): CheckoutView => ({
  id: 'cs_test',
  status: 'failed',
  amount: 5000,
  currency: 'XAF',
  description: null,
  merchantName: 'Boutique',
  merchantLogo: null,
  livemode: false,
  expiresAt: '2026-11-25T12:00:00.000Z',
  successUrl: null,
  cancelUrl: null,
  paymentMethod: 'ORANGE_MONEY',
  phone: null,
  retryUrl: null,
  failureCode: 'pin_error',
  operators: [{ network: 'ORANGE_MONEY', example: '+237 6 90 00 00 01' }],
  phonePlan: pagePhonePlan('XAF'),
  ...over,
});

/** The screen a final state shows, as rendered (the script reveals the same markup later). */
const screen = (html: string, name: string) =>
  new RegExp(`<section id="screen-${name}"[^>]*>(.*?)</section>`, 's').exec(html)![1]!;

describe('the final screens of the hosted page', () => {
  it.each(['failed', 'expired', 'cancelled'])(
    '%s: leads back to the cancel URL, else the return URL',
    (status) => {
      const both = screen(
        renderCheckoutPage(
          view({ status, cancelUrl: 'https://shop.test/panier', successUrl: 'https://shop.test/merci' }),
          'en',
        ),
        status,
      );
      expect(both).toContain('href="https://shop.test/panier"');
      expect(both).toContain('Return to the merchant');
      const returnOnly = screen(
        renderCheckoutPage(view({ status, successUrl: 'https://shop.test/merci' }), 'en'),
        status,
      );
      expect(returnOnly).toContain('href="https://shop.test/merci"');
    },
  );

  it('offers a new try on a link, and says the page may be closed when the merchant gave no URL', () => {
    const link = screen(renderCheckoutPage(view({ retryUrl: '/pay/abc123?lang=fr' }), 'fr'), 'failed');
    expect(link).toContain('href="/pay/abc123?lang=fr"');
    expect(link).toContain('Réessayer');
    const bare = screen(renderCheckoutPage(view({ status: 'expired' }), 'fr'), 'expired');
    expect(bare).not.toContain('<a ');
    expect(bare).toContain('Vous pouvez fermer cette page');
  });
});
