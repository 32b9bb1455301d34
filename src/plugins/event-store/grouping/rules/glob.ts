/**
 * Sentry's glob patterns for rule values (docs/grouping.md, "Matchers"): `*` is any text, `?`
 * one character. For paths, `*` and `?` stay within one path segment, `**` crosses segments, and
 * backslashes count as slashes. Anything else is literal.
 */
export function compileGlob(pattern: string, options: { path: boolean; ignoreCase: boolean }): RegExp {
  const source = options.path ? pattern.replaceAll("\\", "/") : pattern;
  let regex = "";
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (char === "*" && options.path && source[index + 1] === "*") {
      regex += ".*";
      index++;
    } else if (char === "*") regex += options.path ? "[^/]*" : ".*";
    else if (char === "?") regex += options.path ? "[^/]" : ".";
    else regex += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  return new RegExp(`^${regex}$`, options.ignoreCase ? "is" : "s");
}

/** Whether `value` matches a compiled glob; paths are compared with forward slashes. */
export function globMatches(glob: RegExp, value: string, path: boolean): boolean {
  return glob.test(path ? value.replaceAll("\\", "/") : value);
}
