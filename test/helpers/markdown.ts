export interface CodeBlock {
  /** The info string's first word (`js`, `sh`), or "". */
  lang: string;
  /** `title="server.mjs"` in the info string: how a guide names the file a block is. */
  title: string | undefined;
  code: string;
}

/**
 * Every fenced code block of a Markdown page, in order, with the indentation of a block inside a
 * list item removed (as Markdown renders it).
 */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of markdown.matchAll(/^([ \t]*)```(\w*)([^\n]*)\n([\s\S]*?)^\1```[ \t]*$/gm)) {
    const [, indent = "", lang = "", info = "", body = ""] = match;
    const code = body
      .split("\n")
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join("\n");
    blocks.push({ lang, title: /title="([^"]+)"/.exec(info)?.[1], code });
  }
  return blocks;
}
