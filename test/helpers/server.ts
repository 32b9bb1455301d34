import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeHandler, type HasHandler } from "../../adapters/node/index.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a request listener on 127.0.0.1 on a free port. */
export async function listen(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A real node:http server in front of a Faultline instance (optionally under a prefix). */
export function serveFaultline(faultline: HasHandler, basePath = ""): Promise<RunningServer> {
  const handler = createNodeHandler(faultline, { basePath });
  return listen(
    createServer((req, res) => {
      if (basePath && !req.url?.startsWith(basePath)) {
        res.statusCode = 404;
        res.end("host 404");
        return;
      }
      void handler(req, res);
    }),
  );
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
