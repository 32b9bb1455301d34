// Preact through htm tagged templates: no JSX toolchain, and nothing compiled at runtime but the
// templates themselves (htm parses each once, no eval: fine under the CSP).
export { html } from "htm/preact";
