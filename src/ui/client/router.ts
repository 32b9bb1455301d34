import { useEffect, useState } from "preact/hooks";
import { config } from "./config.js";

/** Where the app is, relative to the dashboard's mount path. */
export interface Location {
  path: string;
  params: URLSearchParams;
}

const read = (): Location => {
  const path = window.location.pathname.slice(config.base.length) || "/";
  return { path, params: new URLSearchParams(window.location.search) };
};

const listeners = new Set<() => void>();

/** Goes to a dashboard path (`/acme/issues/1?event=…`) without a reload. */
export function navigate(to: string, replace = false): void {
  const url = `${config.base}${to}`;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  for (const listener of listeners) listener();
  if (!replace) window.scrollTo(0, 0);
}

export const href = (to: string) => `${config.base}${to}`;

export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return location;
}

/** Same-document navigation for plain left clicks on dashboard links (others open normally). */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const anchor = (event.target as Element | null)?.closest?.("a");
  const target = anchor?.getAttribute("href");
  if (!anchor || !target || anchor.target || !target.startsWith(config.base + "/")) return;
  event.preventDefault();
  navigate(target.slice(config.base.length));
}
