export { certificationRunnerService } from './service.js';
