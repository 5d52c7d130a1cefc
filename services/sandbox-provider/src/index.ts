export { sandboxProviderService } from './service.js';
