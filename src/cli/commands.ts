// The list of `mop` subcommands. Each module is imported only when its command runs.
import { registerSubcommand } from "./main.js";
