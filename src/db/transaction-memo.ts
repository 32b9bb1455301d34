import type { TransactionScope } from "./transaction.js";

/**
 * Values looked up once per transaction and key. Subscribers run once per event, and a batch of
 * ingested events shares one transaction: memoising per transaction makes the batch cost one
 * query per key instead of one per event, and nothing outlives the transaction that read it.
 */
export class TransactionMemo<K, V> {
  readonly #perScope = new WeakMap<TransactionScope, Map<K, V>>();

  get(scope: TransactionScope, key: K, load: () => V): V {
    let values = this.#perScope.get(scope);
    if (!values) this.#perScope.set(scope, (values = new Map()));
    if (values.has(key)) return values.get(key) as V;
    const value = load();
    values.set(key, value);
    return value;
  }
}
