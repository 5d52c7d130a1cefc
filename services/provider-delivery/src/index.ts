export { providerDelivery, providerDeliveryService } from './service.js';
