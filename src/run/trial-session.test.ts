import { describe, expect, it } from "vitest";
import type { ToolResult } from "../workspace/workspace.js";
import { HarnessSession } from "./trial-session.js";

const echo = { call: async (name: string): Promise<ToolResult> => ({ ok: true, content: `${name} done` }) };

describe("HarnessSession.replay", () => {
  it("appends another session's span at the same position, as if its calls were made here", async () => {
    const recorded = new HarnessSession(echo, "sys", "ticket", []);
    const from = recorded.position();
    await recorded.step({ toolCalls: [{ name: "read", arguments: {} }] });
    await recorded.step({ toolCalls: [{ name: "search", arguments: {} }] });
    const to = recorded.position();
    const span = recorded.messages.slice(from.messages, to.messages);

    const played = new HarnessSession(echo, "sys", "ticket", []);
    expect(played.replay(from, to, span)).toBe(true);
    await played.step({ toolCalls: [{ name: "write", arguments: {} }] });
    await recorded.step({ toolCalls: [{ name: "write", arguments: {} }] });
    expect(played.messages).toEqual(recorded.messages);
    expect(played.toolCallCount).toBe(recorded.toolCallCount);
  });

  it("refuses, changing nothing, a session elsewhere or ended", async () => {
    const recorded = new HarnessSession(echo, "sys", "ticket", []);
    const from = recorded.position();
    await recorded.step({ toolCalls: [{ name: "read", arguments: {} }] });
    const to = recorded.position();
    const span = recorded.messages.slice(from.messages, to.messages);

    const ahead = new HarnessSession(echo, "sys", "ticket", []);
    await ahead.step({ toolCalls: [{ name: "search", arguments: {} }] });
    const before = ahead.position();
    expect(ahead.replay(from, to, span)).toBe(false);
    expect(ahead.position()).toEqual(before);

    const ended = new HarnessSession(echo, "sys", "ticket", []);
    ended.finish("done");
    expect(ended.replay(from, to, span)).toBe(false);
    expect(ended.messages).toHaveLength(3);
  });
});
