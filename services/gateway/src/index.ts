export { gatewayService, createGatewayService, type GatewayOptions } from './service.js';
export { Env } from './config.js';
export { buildGatewayApp, type GatewayDeps, type GatewaySettings } from './http/app.js';
export { forwardedRoutes } from './routes/index.js';
