export { providerDeliveryService } from './service.js';
