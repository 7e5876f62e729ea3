package dev.parley.kubectl;

import dev.parley.kubectl.cli.ExitCodes;
import dev.parley.kubectl.cli.Failures;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kubectl parley ...}: status of regions and pools, five-phase drains, meeting inspection. */
@Command(name = "kubectl-parley", mixinStandardHelpOptions = true, version = "kubectl-parley 0.1.0",
        description = "Operate Parley media regions: status, drain, inspect. Every command takes -o wide|json|yaml.",
        subcommands = {StatusCommand.class, DrainCommand.class, InspectCommand.class})
public final class KubectlParley implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * The command tree: errors from a command become one "error: ..." line on stderr and an exit code from
     * {@link ExitCodes}, and every command's help lists those codes.
     */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new KubectlParley());
        cl.setExecutionExceptionHandler(new Failures());
        addExitCodes(cl);
        return cl;
    }

    private static void addExitCodes(CommandLine cl) {
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodes.helpList());
        cl.getSubcommands().values().forEach(KubectlParley::addExitCodes);
    }

    /** Runs the CLI with the given streams and returns the exit code (tests call this directly). */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    public static void main(String[] args) {
        // The fat jar drops every dependency's logback.xml (and with it ours, same name): point logback at ours,
        // so only warnings reach stderr and stdout stays the command's output.
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "kubectl-parley-logback.xml");
        }
        System.exit(commandLine().execute(args));
    }
}
