export { gatewayService, createGatewayService, gatewayUrl, gatewayApp, Env } from './service.js';
export { buildGatewayApp, type GatewayDeps, type GatewaySettings } from './http/app.js';
export { forwardedRoutes } from './routes/index.js';
