export { providerRouter, providerRouterService } from './service.js';
