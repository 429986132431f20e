import type { Agent } from "../trial/agent.js";

/** The blank exam: no action, empty answer. Every grader must fail it. */
export const blankAgent: Agent = {
  name: "blank",
  async attempt(session) {
    session.finish("");
  },
};
