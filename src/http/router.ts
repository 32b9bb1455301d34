export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

interface RouteEntry<T> {
  value: T;
  owner: string;
  template: string;
  paramNames: string[];
}

interface Node<T> {
  statics: Map<string, Node<T>>;
  param?: Node<T>;
  routes: Map<string, RouteEntry<T>>;
}

export type RouteMatch<T> =
  | { kind: "found"; value: T; params: Record<string, string>; template: string }
  | { kind: "method-not-allowed"; allow: string[] }
  | { kind: "not-found" };

const newNode = <T>(): Node<T> => ({ statics: new Map(), routes: new Map() });

/** Empty segments are dropped, so a trailing slash (Sentry's style) is optional and `//` is harmless. */
function segmentsOf(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * A segment trie. Static segments win over parameters; parameters capture one whole segment.
 * Adding the same method on the same path shape twice throws, naming both owners.
 */
export class Router<T> {
  readonly #root: Node<T> = newNode();
  /** Static segments accepted as another spelling of a registered one (`sentry-apps` → `svc-apps`). */
  readonly #aliases = new Map<string, string>();

  /** Accepts `alias` wherever the static segment `segment` is routed; throws if `alias` already names another. */
  alias(alias: string, segment: string, owner: string): void {
    const existing = this.#aliases.get(alias);
    if (existing !== undefined && existing !== segment)
      throw new Error(`Path alias conflict: "${alias}" (plugin "${owner}") already stands for "${existing}"`);
    this.#aliases.set(alias, segment);
  }

  add(method: HttpMethod, template: string, value: T, owner: string): void {
    let node = this.#root;
    const paramNames: string[] = [];
    for (const segment of segmentsOf(template)) {
      const param = PARAM.exec(segment);
      if (param) {
        paramNames.push(param[1] as string);
        node = node.param ??= newNode();
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    const existing = node.routes.get(method);
    if (existing) {
      throw new Error(
        `Route conflict: ${method} ${template} (plugin "${owner}") collides with ${method} ${existing.template} (plugin "${existing.owner}")`,
      );
    }
    node.routes.set(method, { value, owner, template, paramNames });
  }

  match(method: string, path: string): RouteMatch<T> {
    let segments: string[];
    try {
      segments = segmentsOf(path).map(decodeURIComponent);
    } catch {
      return { kind: "not-found" };
    }
    const found = this.#find(this.#root, segments, 0, []);
    if (!found) return { kind: "not-found" };
    const { node, values } = found;
    const entry = node.routes.get(method) ?? (method === "HEAD" ? node.routes.get("GET") : undefined);
    if (!entry) return { kind: "method-not-allowed", allow: allowedMethods(node) };
    const params = Object.fromEntries(entry.paramNames.map((name, i) => [name, values[i] as string]));
    return { kind: "found", value: entry.value, params, template: entry.template };
  }

  /** Every route, for OpenAPI and the in-process API. */
  *entries(): Generator<{ method: string; template: string; value: T; owner: string }> {
    const stack: Node<T>[] = [this.#root];
    while (stack.length > 0) {
      const node = stack.pop() as Node<T>;
      for (const [method, entry] of node.routes)
        yield { method, template: entry.template, value: entry.value, owner: entry.owner };
      stack.push(...node.statics.values());
      if (node.param) stack.push(node.param);
    }
  }

  #find(
    node: Node<T>,
    segments: string[],
    index: number,
    values: string[],
  ): { node: Node<T>; values: string[] } | undefined {
    if (index === segments.length) return node.routes.size > 0 ? { node, values } : undefined;
    const segment = segments[index] as string;
    const alias = this.#aliases.get(segment);
    const staticChild = node.statics.get(segment) ?? (alias === undefined ? undefined : node.statics.get(alias));
    const viaStatic = staticChild && this.#find(staticChild, segments, index + 1, values);
    if (viaStatic) return viaStatic;
    return node.param && this.#find(node.param, segments, index + 1, [...values, segment]);
  }
}

function allowedMethods<T>(node: Node<T>): string[] {
  const methods = new Set(node.routes.keys());
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}
