/** One re-draw of a storyline position whose subtask failed certification. */
export interface Regeneration {
  world: string;
  position: number;
  attempt: number;
  /** The template that failed, and the one drawn in its place. */
  from: string;
  to: string;
  /** The first gate failure of the failing solo task: `gate/check: message`. */
  reason: string;
}

/**
 * What certification changed in the generated bank: positions re-drawn, tasks dropped (a solo task
 * still failing after its re-draws, and every chain that covers it), and chains truncated to their
 * world's longest certified prefix.
 */
export interface CertificationLog {
  regenerated: Regeneration[];
  dropped: Array<{ task: string; reason: string }>;
  truncated: Array<{ world: string; longest: number; was: number; reason: string }>;
}
