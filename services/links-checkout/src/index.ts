export { linksCheckoutService } from './service.js';
export { MAX_LOGO_BYTES } from './domain/logo.js';
