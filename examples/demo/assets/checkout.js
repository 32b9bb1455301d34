// The demo's "shipped" script: a tiny checkout whose minified build (checkout.min.js, with its
// source map checkout.min.js.map) crashes once when the demo seeds, so that the issue `npm start`
// shows has a stack mapped back to this file. Regenerate both after editing this file:
//   npx esbuild examples/demo/assets/checkout.js --bundle --minify --format=esm --sourcemap \
//     --outfile=examples/demo/assets/checkout.min.js
//   npx sentry-cli sourcemaps inject examples/demo/assets/checkout.min.js examples/demo/assets/checkout.min.js.map

function validateQuantity(line) {
  if (line.quantity <= 0) {
    throw new Error(`Invalid quantity for ${line.sku}: ${line.quantity}`);
  }
}

function computeTotal(lines, prices) {
  let total = 0;
  for (const line of lines) {
    validateQuantity(line);
    total += (prices[line.sku] ?? 0) * line.quantity;
  }
  return total;
}

export function checkout() {
  return computeTotal(
    [
      { sku: "apple", quantity: 2 },
      { sku: "pear", quantity: 0 },
    ],
    { apple: 3, pear: 4 },
  );
}
