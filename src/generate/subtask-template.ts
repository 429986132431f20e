import type { Rng } from "../bank/rng.js";
import type { Axis } from "../bank/task-schema.js";
import type { BuiltWorld } from "./build-world.js";
import type { Difficulty, GenSubtask, StoryState } from "./story-state.js";
import type { TicketGrammar } from "./ticket-grammar.js";

/** What a subtask template sees when it instantiates one storyline position. */
export interface TemplateContext {
  built: BuiltWorld;
  state: StoryState;
  rng: Rng;
  grammar: TicketGrammar;
  position: number;
  difficulty: Difficulty;
  /** The seed asked for coupling: consume a value an earlier position planted, when one exists. */
  coupled: boolean;
}

/**
 * A subtask template: one kind of job on one axis. `build` writes the ticket, the golden solution
 * and the grader for the state the storyline has reached, and applies the golden's effects to that
 * state (records created or updated, variables planted) so the next position sees them.
 *
 * @example const sub = AUTH_TEMPLATES[0].build(ctx);
 */
export interface SubtaskTemplate {
  id: string;
  axis: Axis;
  difficulty: Difficulty;
  build(ctx: TemplateContext): GenSubtask;
}
