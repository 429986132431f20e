import { goldenAgentFactory } from "../../src/agents/scripted-agents.js";
import type { AgentFactory, TrialSession } from "../../src/trial/agent.js";

/** Milliseconds the slow golden agent waits before each step: long enough to kill a worker mid-trial. */
export const SLOW_STEP_MS = 60;

/**
 * The golden agent with a fixed delay before each step: deterministic results, but trials that
 * last long enough for a worker to be killed in the middle of one. Loaded by workers as an agent
 * module (`--agent ./test/support/slow-golden-agent.ts`).
 */
export const slowGoldenAgentFactory: AgentFactory = {
  name: "slow-golden",
  forTask(task, context) {
    const golden = goldenAgentFactory.forTask(task, context);
    return {
      name: "slow-golden",
      attempt: (session) => golden.attempt(delayed(session, SLOW_STEP_MS)),
    };
  },
};

function delayed(session: TrialSession, ms: number): TrialSession {
  return new Proxy(session, {
    get(target, prop) {
      if (prop === "step") {
        return async (turn: Parameters<TrialSession["step"]>[0]) => {
          await new Promise((r) => setTimeout(r, ms));
          return target.step(turn);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export default slowGoldenAgentFactory;
