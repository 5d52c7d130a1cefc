export { paymentsService } from './service.js';
