import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../agents/providers.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

describe("apiflow run --help", () => {
  it("lists every exit code", async () => {
    const io = bufferIo({});
    expect(await runCli(["run", "--help"], io)).toBe(0);
    const help = io.out();
    for (const line of [
      /^ {2}0 {2}every trial of the grid ran and was scored$/m,
      /^ {2}1 {2}some trial ended unscored/m,
    ]) {
      expect(help).toMatch(line);
    }
    expect(help).toMatch(/^ {2}2 {2}usage error/m);
    expect(help).toMatch(/^ {2}3 {2}--cost-limit stopped the run/m);
    expect(help).toMatch(/^ 70 {2}internal error/m);
  });

  it("lists each provider's key variable", async () => {
    const io = bufferIo({});
    expect(await runCli(["run", "--help"], io)).toBe(0);
    for (const [name, p] of Object.entries(PROVIDERS)) {
      expect(io.out()).toMatch(new RegExp(`^ {2}${name}/… +${p.keyEnv}`, "m"));
    }
  });
});
