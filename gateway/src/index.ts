export { createGateway } from './app';
export type { Gateway, GatewayOptions } from './app';
export { Authenticator, readCredentials } from './auth/authenticator';
export type { Credentials, CredentialSource, AuthenticatorOptions } from './auth/authenticator';
export { buildOpenApi, toOpenApiPath } from './openapi';
export { listen } from './server';
export type { HttpServer } from './server';
