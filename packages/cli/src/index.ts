export { buildProgram } from './program.js';
export { loadConfig, type CliConfig } from './config.js';
export { CliError } from './client.js';
