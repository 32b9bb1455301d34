/** Per-request options an adapter passes: where the host mounted Faultline, and who sent the request. */
export interface HandlerOptions {
  /** The mount prefix of this request (`/faultline`); defaults to the instance's `basePath`. */
  basePath?: string;
  /**
   * The sender's IP address as the host resolved it: the socket's peer, or the client named in
   * `X-Forwarded-For` when the host trusts its proxy (the adapters apply the framework's
   * trusted-proxy setting). Ingest puts it where an SDK asked for `{{auto}}`; absent, it is unknown.
   */
  clientAddress?: string;
}
