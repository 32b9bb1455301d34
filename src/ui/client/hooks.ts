import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { config } from "./config.js";

export interface Async<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` whenever `deps` change, and again every poll interval while the tab is visible
 * (new events appear without a reload). A poll keeps the previous data on screen meanwhile.
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[], poll = false): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: unknown) =>
        mine === generation.current &&
        setState((previous) => ({
          data: previous.data,
          error: error instanceof Error ? error : new Error(String(error)),
          loading: false,
        })),
    );
    // `deps` are the caller's: `load` is a fresh closure on every render.
  }, deps);
  useEffect(() => {
    setState({ loading: true });
    run();
  }, [run]);
  useEffect(() => {
    if (!poll || config.pollMs <= 0) return;
    const timer = setInterval(() => document.visibilityState === "visible" && run(), config.pollMs);
    return () => clearInterval(timer);
  }, [run, poll]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}
