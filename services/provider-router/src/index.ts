export { providerRouterService } from './service.js';
