import fc from "fast-check";

/**
 * Text as a hostile client can send it: any UTF-16 code units (so NULs and unpaired surrogates),
 * mixed with the troublemakers on purpose so that they are not rare.
 */
export const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "🚀", "é", "a", "__proto__", "\\", '"'),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

/** JSON values (objects, arrays, numbers, booleans, null) whose strings and keys are hostile. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A value nested `depth` levels deep (arrays or objects), built without recursion. */
export function nested(depth: number, kind: "array" | "object", leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
  return value;
}
