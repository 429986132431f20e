import type { Command } from "commander";
import type { World } from "../../bank/world-schema.js";
import { prepareTrialWorld } from "../../run/replay-setup.js";
import { trialSeed } from "../../world/canary.js";
import { GRAPHQL_PATH } from "../../world/graphql-endpoint.js";
import { MCP_WORLD_PATH } from "../../world/mcp-world.js";
import { serveTrialWorld } from "../../world/transport.js";
import { bankOption, epochOption, portOption } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

/** Where a served world's spec is: OpenAPI for REST, introspection for GraphQL, tools/list for MCP. */
export function specLine(protocol: World["protocol"], baseUrl: string): string {
  if (protocol === "graphql")
    return `GraphQL at POST ${baseUrl}${GRAPHQL_PATH} (the schema by introspection)`;
  if (protocol === "mcp")
    return `MCP tools (Streamable HTTP) at POST ${baseUrl}${MCP_WORLD_PATH} (the tools by tools/list)`;
  return `spec at ${baseUrl}/openapi.json`;
}

/**
 * `apiflow serve`: serve one task's world (with the storyline before it replayed) over HTTP on
 * 127.0.0.1, so curl or an external agent can talk to it. The base URL is stdout's first line.
 */
export function registerServe(program: Command, io: CliIo, _setExit: SetExit, signal?: AbortSignal): void {
  program
    .command("serve")
    .description("serve a task's world over HTTP on 127.0.0.1")
    .addOption(bankOption())
    .option("--task <id>", "task whose world to serve (default: the bank's first task)")
    .option("--world <id>", "world to serve (its first task's state)")
    .addOption(epochOption())
    .addOption(portOption(8787))
    .option("--host <host>", "loopback host", "127.0.0.1")
    .action(
      async (opts: {
        bank?: string;
        task?: string;
        world?: string;
        epoch: number;
        port: number;
        host: string;
      }) => {
        const bank = bankFromOption(opts.bank, io.cwd);
        const task = opts.task
          ? bank.tasks.find((t) => t.id === opts.task)
          : bank.tasks.find((t) => !opts.world || t.world === opts.world);
        if (!task)
          throw new UsageError(
            opts.task ? `no task "${opts.task}" in the bank` : `no task in world "${opts.world}"`,
          );
        const world = bank.worlds.find((w) => w.id === task.world);
        if (!world) throw new UsageError(`task ${task.id} names unknown world ${task.world}`);
        if (!["127.0.0.1", "localhost", "::1"].includes(opts.host)) {
          throw new UsageError("--host must be a loopback address (127.0.0.1, localhost or ::1)");
        }
        const { port, epoch } = opts;
        const trial = await prepareTrialWorld(world, task, trialSeed(bank.manifest.seed, task.id, epoch));
        const served = await serveTrialWorld(trial, port, opts.host);
        io.stdout(`${served.baseUrl}\n`);
        io.stderr(
          `serving world ${world.id} for task ${task.id} (epoch ${epoch}); ${specLine(world.protocol, served.baseUrl)}; Ctrl-C stops\n`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => void served.close().then(resolve);
          if (signal) signal.addEventListener("abort", stop, { once: true });
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
      },
    );
}
