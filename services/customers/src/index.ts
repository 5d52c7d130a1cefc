export { customersService } from './service.js';
