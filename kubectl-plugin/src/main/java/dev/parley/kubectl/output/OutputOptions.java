package dev.parley.kubectl.output;

import picocli.CommandLine.Option;

/** The {@code -o/--output} flag every command mixes in. */
public final class OutputOptions {
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", converter = OutputFormat.Converter.class,
            completionCandidates = OutputFormat.Candidates.class,
            description = "Output format: ${COMPLETION-CANDIDATES} (default: table). wide adds columns; json and yaml "
                    + "print the whole document (apiVersion kubectl.parley.dev/v1, shapes in docs/kubectl-parley.md).")
    OutputFormat output;

    public OutputFormat format() {
        return output == null ? OutputFormat.TABLE : output;
    }
}
