// What the relay's middleware leaves on the request context for later middleware and the request log.
export interface RelayEnv {
  Variables: {
    requestId: string;
    /** The configuration a request is about, once known (query, body or handle); logged, never secret. */
    clientId: string | null;
    /** The API error code, when the answer is an error. */
    errorCode: string | undefined;
    /** What caused the error (ApiError.reason), for the request log. */
    errorCause: string | undefined;
    /** Set: the request log writes no line for this request (a refused flood is logged once per streak instead). */
    unlogged: boolean | undefined;
  };
}
