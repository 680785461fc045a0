// @builder.io/partytown names types for its integration entry that the package does not ship: the one function the
// host-page suite uses, as its documentation gives it.
declare module '@builder.io/partytown/integration' {
  /** The inline script that starts Partytown on a page. */
  export function partytownSnippet(config?: Record<string, unknown>): string;
}
