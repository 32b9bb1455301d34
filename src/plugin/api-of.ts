// The type of `faultline.api`, computed from the plugins themselves: what each `api()` returns,
// and one function per endpoint each lists. Nothing here runs; `buildFaultline` builds the same
// object at run time (the plugins' namespaces, then `InProcess.extend` for every route).
import type { EndpointApi } from "../http/in-process.js";
import type { FaultlinePlugin } from "./plugin.js";

/** What the plugins' `api()` return, merged (element by element, so a plugin without an API adds nothing). */
export type PluginApisOf<P extends readonly FaultlinePlugin[]> = P extends readonly [
  infer Head,
  ...infer Tail extends readonly FaultlinePlugin[],
]
  ? (Head extends FaultlinePlugin<infer A> ? A : unknown) & PluginApisOf<Tail>
  : unknown;

/** Every endpoint the plugins list, one union. */
type DeclaredEndpoints<P extends readonly FaultlinePlugin[]> = NonNullable<P[number]["endpoints"]>[number];

/**
 * `{ [operationId]: endpoint }` for every endpoint the plugins list. An endpoint whose operation
 * id is only `string` (declared as `AnyEndpoint`, not with `defineEndpoint`) is still callable at
 * run time but has no name to be typed under, so it is left out rather than widening every area.
 */
export type EndpointsById<P extends readonly FaultlinePlugin[]> = {
  [E in DeclaredEndpoints<P> as string extends E["operationId"] ? never : E["operationId"]]: E;
};

/** `api.<area>.<operation>` for each endpoint the plugins list. */
type EndpointFunctionsOf<P extends readonly FaultlinePlugin[]> = EndpointApi<EndpointsById<P>>;

/** `Functions` without the names `Apis` take (at run time those win: `extend` only fills gaps). */
type Without<Functions, Apis> = {
  [Area in keyof Functions]: Area extends keyof Apis ? Omit<Functions[Area], keyof Apis[Area]> : Functions[Area];
};

/**
 * The `faultline.api` type of an instance with the plugins `P`: their admin operations, and
 * `api.<area>.<operation>` for each endpoint they list (inputs and outputs inferred from its
 * definition). A plugin's new endpoint appears here as soon as it is in its `endpoints`.
 */
export type ApiOf<P extends readonly FaultlinePlugin[]> = PluginApisOf<P> &
  Without<EndpointFunctionsOf<P>, PluginApisOf<P>>;

/**
 * `ApiOf<[...Base, ...Extra]>`, built as `ApiOf<Base> & …` with `ApiOf<Base>` as it is: the base's
 * part is computed once and shared by every `Extra` (the host's plugin sets), not computed and
 * compared again for each (TypeScript matches identical members of an intersection first; a
 * conditional or mapped type over the whole API made it resolve every endpoint's types).
 * Namespaces of `Extra`'s `api()` cannot collide with `Base`'s (composition throws); one named
 * like an area of `Base`'s endpoints adds its functions there, and where a name is both, both
 * signatures stay (at run time the `api()` one answers).
 */
export type ExtendedApiOf<
  Base extends readonly FaultlinePlugin[],
  Extra extends readonly FaultlinePlugin[],
> = ApiOf<Base> & ExtraApiOf<Base, Extra>;

/** What `Extra` adds: its namespaces, and its endpoints where no namespace (of `Base` or its own) has the name. */
type ExtraApiOf<
  Base extends readonly FaultlinePlugin[],
  Extra extends readonly FaultlinePlugin[],
> = Extra extends readonly []
  ? unknown
  : PluginApisOf<Extra> & Without<EndpointFunctionsOf<Extra>, PluginApisOf<Base> & PluginApisOf<Extra>>;
