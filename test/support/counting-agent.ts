import { appendFileSync } from "node:fs";
import { goldenAgentFactory } from "../../src/agents/scripted-agents.js";
import type { AgentFactory } from "../../src/trial/agent.js";

/**
 * The golden agent, appending one line per attempt (`<task id> <trial seed>`) to the file named by
 * `APIFLOW_TEST_ATTEMPT_LOG`: how a resume test sees which trials a rerun actually ran. Loaded as an
 * agent module (`--agent ./test/support/counting-agent.ts`), in this process or a child.
 */
export const countingGoldenAgentFactory: AgentFactory = {
  name: "counting-golden",
  forTask(task, context) {
    const golden = goldenAgentFactory.forTask(task, context);
    return {
      name: "counting-golden",
      attempt: (session) => {
        const log = process.env.APIFLOW_TEST_ATTEMPT_LOG;
        if (log) appendFileSync(log, `${task.id} ${context.trialSeed}\n`);
        return golden.attempt(session);
      },
    };
  },
};

export default countingGoldenAgentFactory;
