import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

/** Stands for the i-th argument while the statement is built; replaced by its value at each run. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A statement Kysely builds and compiles once per database handle, then runs with new values: on
 * a hot read, building the operation tree, applying the schema and compiling it cost more CPU than
 * the round trip. `build` receives stand-ins for its arguments and must only pass them into the
 * query as values (never branch on them, spread them or use them in `in` lists): a statement of
 * another shape is another `PreparedStatement`.
 */
export class PreparedStatement<Args extends unknown[], Row> {
  readonly #compiled = new WeakMap<object, CompiledQuery<Row>>();

  constructor(
    private readonly arity: Args["length"],
    private readonly build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  ) {}

  async execute(db: Kysely<Database>, ...args: Args): Promise<Row[]> {
    let compiled = this.#compiled.get(db);
    if (!compiled) {
      const slots = Array.from({ length: this.arity }, (_, index) => new Slot(index)) as unknown as Args;
      compiled = this.build(db, ...slots).compile();
      this.#compiled.set(db, compiled);
    }
    const parameters = compiled.parameters.map((value) => (value instanceof Slot ? args[value.index] : value));
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  }

  async executeTakeFirst(db: Kysely<Database>, ...args: Args): Promise<Row | undefined> {
    return (await this.execute(db, ...args))[0];
  }
}
