export * from './subjects.js';
export * from './envelope.js';
export * from './contract.js';
export * from './events.js';
export * from './actors.js';
