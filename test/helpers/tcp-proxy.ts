import { createServer, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  /** 127.0.0.1 port the proxy listens on. */
  port: number;
  /** `connectionString` with its host and port replaced by the proxy's. */
  url(connectionString: string): string;
  /** A network outage: resets every open connection and refuses new ones until `restore()`. */
  cut(): void;
  /**
   * A silent network outage: resets every open connection, then accepts new ones and never
   * answers (a dropped route, a hung load balancer) until `restore()`.
   */
  blackhole(): void;
  /** Forwards new connections again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target`: a real network fault between a client and
 * PostgreSQL that a test can cut and restore (terminated backends only cover the server side).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let state: "forwarding" | "refusing" | "silent" = "forwarding";
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
  };
  const server = createServer((client) => {
    track(client);
    if (state === "refusing") return void client.resetAndDestroy();
    if (state === "silent") return; // held open, never forwarded
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url(connectionString) {
      const url = new URL(connectionString);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    cut() {
      state = "refusing";
      resetAll();
    },
    blackhole() {
      state = "silent";
      resetAll();
    },
    restore() {
      state = "forwarding";
    },
    close: () =>
      new Promise<void>((resolve) => {
        resetAll();
        server.close(() => resolve());
      }),
  };
}
