import type { AgentFactory } from "../src/trial/agent.js";

/** Model latency the queue bench pretends to wait on, per step, and steps per trial. */
export const STEP_MS = 100;
export const STEPS = 5;

/**
 * A fake model of fixed latency: each step waits `STEP_MS` (as a provider call would) then reads a
 * variable; after `STEPS` steps it answers. Workers load it as an agent module.
 */
const fixedLatencyAgent: AgentFactory = {
  name: "fixed-latency",
  forTask: () => ({
    name: "fixed-latency",
    async attempt(session) {
      for (let i = 0; i < STEPS && !session.ended; i++) {
        await new Promise((r) => setTimeout(r, STEP_MS));
        await session.step({
          toolCalls: [{ name: "read", arguments: { entity_ref: { kind: "variable", id: "client_id" } } }],
        });
      }
      if (!session.ended) session.finish("done");
    },
  }),
};

export default fixedLatencyAgent;
