export * from './subjects.js';
export * from './envelope.js';
export * from './events.js';
