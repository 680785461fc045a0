/** Documented (service-interface.md): where the relay asks for its access token. */
export const TOKEN_PATH = '/api/oauth/token/';
