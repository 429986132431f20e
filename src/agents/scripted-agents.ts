import type { Agent, AgentFactory } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import { blankAgent } from "./blank-agent.js";

/** Replays the task's golden solution through the tools: the answer key every grader must pass. */
export const goldenAgentFactory: AgentFactory = {
  name: "golden",
  forTask(task): Agent {
    return {
      name: "golden",
      async attempt(session) {
        await playGolden(task.golden, session, { versioning: task.versioning });
        if (!session.ended) session.finish("");
      },
    };
  },
};

/** The blank exam: no action, no answer. */
export const blankAgentFactory: AgentFactory = { name: "blank", forTask: () => blankAgent };

/** Scripted agents by name, as `apiflow run --agent NAME` knows them. */
export const SCRIPTED_AGENTS: Record<string, AgentFactory> = {
  golden: goldenAgentFactory,
  blank: blankAgentFactory,
};
