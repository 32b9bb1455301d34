import { describe, expect, it } from "vitest";
import { truncateUtf8 } from "../../src/delivery/truncate.js";

describe("truncateUtf8", () => {
  it("keeps text that fits, whole", () => {
    expect(truncateUtf8("short", 1024)).toBe("short");
    expect(truncateUtf8("x".repeat(1024), 1024)).toBe("x".repeat(1024));
  });
  it("cuts by bytes, not characters", () => {
    const cut = truncateUtf8("é".repeat(1000), 1024);
    expect(cut).toBe("é".repeat(512));
    expect(Buffer.byteLength(cut)).toBe(1024);
  });
  it("never splits a character, a surrogate pair included", () => {
    expect(truncateUtf8(`a${"😀".repeat(10)}`, 8)).toBe("a😀"); // 1 + 4 bytes; a second emoji would make 9
    expect(truncateUtf8(`ab${"é".repeat(10)}`, 5)).toBe("abé"); // 2 + 2 bytes; the next é would make 6
  });
});
