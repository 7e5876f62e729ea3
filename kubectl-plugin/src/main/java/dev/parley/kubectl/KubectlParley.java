package dev.parley.kubectl;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kubectl parley ...}: status of regions and pools, five-phase drains, meeting inspection. */
@Command(name = "kubectl-parley", mixinStandardHelpOptions = true, version = "kubectl-parley 0.1.0",
        description = "Operate Parley media regions: status, drain, inspect.",
        subcommands = {StatusCommand.class, DrainCommand.class, InspectCommand.class})
public final class KubectlParley implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Runs the CLI with the given streams and returns the exit code (tests call this directly). */
    public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new KubectlParley());
        cl.setOut(out);
        cl.setErr(err);
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new KubectlParley()).execute(args));
    }
}
