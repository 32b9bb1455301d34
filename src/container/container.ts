// tsyringe needs the Reflect metadata API before it loads, whichever module reaches it first.
import "reflect-metadata";
import {
  container as globalContainer,
  type DependencyContainer,
  type InjectionToken,
  instancePerContainerCachingFactory,
} from "tsyringe";

const registered = new WeakMap<DependencyContainer, Set<InjectionToken<unknown>>>();

/**
 * A fresh child container for one Faultline instance. Nothing is ever registered in tsyringe's
 * global container, so two instances (or a host that uses tsyringe itself) never collide.
 */
export function createInstanceContainer(): DependencyContainer {
  const child = globalContainer.createChildContainer();
  registered.set(child, new Set());
  return child;
}

/**
 * Registers a service built by an explicit factory, once per container. Factories call
 * constructors themselves: no decorator metadata is needed, so the bundled build behaves
 * exactly like the sources.
 */
export function registerFactory<T>(
  container: DependencyContainer,
  token: InjectionToken<T>,
  factory: (c: DependencyContainer) => T,
): void {
  container.register(token, { useFactory: instancePerContainerCachingFactory(factory) });
  registered.get(container)?.add(token as InjectionToken<unknown>);
}

export function registerValue<T>(container: DependencyContainer, token: InjectionToken<T>, value: T): void {
  container.register(token, { useValue: value });
  registered.get(container)?.add(token as InjectionToken<unknown>);
}

/** Every token registered through these helpers (a smoke test resolves each one). */
export function registeredTokens(container: DependencyContainer): InjectionToken<unknown>[] {
  return [...(registered.get(container) ?? [])];
}
