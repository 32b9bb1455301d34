import { createServer } from "node:net";

/** A TCP port free on `host` right now (the OS picks it), for a child server told to listen on it. */
export function freePort(host) {
  return new Promise((resolve, reject) => {
    const server = createServer().on("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
