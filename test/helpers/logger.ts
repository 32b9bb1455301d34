/** A logger that keeps tests' output clean (failures are asserted, not read from logs). */
export const quiet = { debug() {}, info() {}, warn() {}, error() {} };
