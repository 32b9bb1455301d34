import "./styles.css";
import { render } from "preact";
import { App } from "./app.js";
import { html } from "./html.js";

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(html`<${App} />`, root);
}
