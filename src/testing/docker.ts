import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Whether a container runtime might be reachable, decided from the file system and environment
 * only (microseconds). testcontainers itself is imported only when this says yes, so a machine
 * without Docker never waits for a connection timeout.
 */
export function dockerMightBeAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.DOCKER_HOST) return true;
  const candidates = ["/var/run/docker.sock", join(homedir(), ".testcontainers.properties")];
  if (env.XDG_RUNTIME_DIR) candidates.push(join(env.XDG_RUNTIME_DIR, "docker.sock"));
  return candidates.some((path) => existsSync(path));
}
