export { linksCheckoutService } from './service.js';
